// Package examples runs ctrltest's example tables on a real API server and
// reports where client-go's fakes differ from it.
package examples

import (
	"os"
	"testing"

	"github.com/ctrltest/ctrltest/parity"
)

func TestMain(m *testing.M) {
	os.Exit(parity.Main(m, "../../controller/artifacts/crd.yaml"))
}
