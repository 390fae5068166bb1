package foo

import "testing"

// TestFooController runs the scenarios of Table (table.go) on client-go's
// fakes: each row seeds its objects, syncs its key once and checks every
// write, event, queue record and the error; then syncs again to check that
// the controller is idempotent.
func TestFooController(t *testing.T) {
	Table().Run(t)
}
