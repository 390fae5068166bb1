package webapp_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/ctrltest/ctrltest/parity"
)

// TestMain shares one real API server, with the WebApp CRD, with the
// parity test (it skips without one; see make parity), and fails the run
// when a goroutine outlives the tests.
func TestMain(m *testing.M) {
	code := parity.Main(m, "config/crd/webapps.yaml")
	if err := goleak.Find(); code == 0 && err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}
