package parity

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run when a goroutine outlives the tests (a server's
// process waiter, an informer of a row's fixture, a client's connection).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
