package apiserver

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run when a goroutine (a filtered watch's) outlives
// the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
