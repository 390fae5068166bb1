package checks

import (
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

// isConflict expects the error a real API server returns for a write with a
// stale resourceVersion.
func isConflict(err error) error {
	if !apierrors.IsConflict(err) {
		return fmt.Errorf("want a conflict, got: %v", err)
	}
	return nil
}

// TestAdopter is ordinary table testing, on AdopterTable (tables.go), with
// the API server's resourceVersion checks turned on: each stored object has
// a resourceVersion, each update bumps it, and an update that carries an
// old one fails with a conflict. Expected actions need no resourceVersions:
// they are compared without them.
func TestAdopter(t *testing.T) {
	AdopterTable().Run(t)
}

// TestAdopterStaleResourceVersionIsCaught: client-go's bare fakes accept
// the broken Adopter's stale second write; the fixture's API server model,
// on by default, refuses it as a real API server does.
func TestAdopterStaleResourceVersionIsCaught(t *testing.T) {
	writes := []actions.Action{actions.Update(adopted(false)), actions.UpdateStatus(adopted(true))}

	t.Run("the fakes hide it", func(t *testing.T) {
		f := fixture.New(t, fixture.WithBareFakes(), fixture.WithObjects(deployment(1)))
		res := fixture.Sync(f, adopter(Broken)(f), "default/web")
		res.AssertErr(nil)
		res.AssertActions(writes)
	})
	t.Run("the server model reveals it", func(t *testing.T) {
		f := fixture.New(t, fixture.WithObjects(deployment(1)))
		res := fixture.Sync(f, adopter(Broken)(f), "default/web")
		res.AssertErr(isConflict)
		res.AssertActions(writes) // both were sent; the second was refused
		t.Logf("caught, as intended: %v", res.Err)
	})
}
