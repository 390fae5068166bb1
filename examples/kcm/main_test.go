package kcm

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/ctrltest/ctrltest/parity"
)

// envParity, set to 1, runs the Parity tests (parity_test.go) on a real
// kube-apiserver: one started from hack/parity-binaries.sh's binaries, or
// the cluster of CTRLTEST_PARITY_KUBECONFIG (see the parity module).
const envParity = "CTRLTEST_KCM_PARITY"

// TestMain shares one API server across the Parity tests when they are
// asked for, and fails the run when a goroutine outlives the tests.
func TestMain(m *testing.M) {
	if os.Getenv(envParity) != "1" {
		goleak.VerifyTestMain(m)
		return
	}
	code := parity.Main(m)
	if err := goleak.Find(); code == 0 && err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}
