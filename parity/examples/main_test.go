// Package examples runs ctrltest's example tables on a real API server and
// reports where client-go's fakes differ from it.
package examples

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/ctrltest/ctrltest/parity"
)

// TestMain shares one server (with the Foo CRD) across the tests, and
// fails the run when a goroutine outlives them.
func TestMain(m *testing.M) {
	code := parity.Main(m, "../../controller/artifacts/crd.yaml")
	if err := goleak.Find(); code == 0 && err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}
