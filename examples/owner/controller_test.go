package owner_test

import (
	"testing"

	"github.com/ctrltest/ctrltest/examples/owner"
)

// TestSync runs the scenarios of owner.Table (table.go) on client-go's
// fakes: each row seeds its objects, syncs its key once and checks every
// write, event, queue record and the error; then syncs again to check that
// the controller is idempotent.
func TestSync(t *testing.T) {
	owner.Table().Run(t)
}
