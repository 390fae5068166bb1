package webapp_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run when a goroutine outlives the tests. The same
// reconciler's rows run on a real API server in the parity module of the
// examples (ctrlruntime/examples/parity/webapp; make parity).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
