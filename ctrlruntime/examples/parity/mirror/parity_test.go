// Package mirrorparity runs the mirror reconciler's table on client-go's fakes
// and on a real API server (through controller-runtime's own client, made
// from the fixture's RESTConfig), and reports where they differ. Its tests
// skip without a server (make parity).
package mirrorparity

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/ctrltest/ctrltest/ctrlruntime/examples/mirror"
	"github.com/ctrltest/ctrltest/parity"
)

// TestMain shares one server across the tests, and fails the run when a
// goroutine outlives them.
func TestMain(m *testing.M) {
	code := parity.Main(m)
	if err := goleak.Find(); code == 0 && err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// TestMirrorParity: the same rows, reconciled by controller-runtime's
// client on kube-apiserver.
func TestMirrorParity(t *testing.T) {
	parity.Run(t, parity.Shared(t), mirror.Table())
}
