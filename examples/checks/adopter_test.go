package checks

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

func adopter(v Variant) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		return NewAdopter(f.Kube(), f.KubeInformers().Apps().V1().Deployments(), v).Sync
	}
}

// adopted is the Deployment with the Adopter's label, and with its
// condition when withCondition.
func adopted(withCondition bool) *appsv1.Deployment {
	d := deployment(1)
	d.Labels = map[string]string{AdoptedLabel: "true"}
	if withCondition {
		d.Status.Conditions = []appsv1.DeploymentCondition{{Type: ConditionAdopted, Status: corev1.ConditionTrue, Reason: "Adopted"}}
	}
	return d
}

// isConflict expects the error a real API server returns for a write with a
// stale resourceVersion.
func isConflict(err error) error {
	if !apierrors.IsConflict(err) {
		return fmt.Errorf("want a conflict, got: %v", err)
	}
	return nil
}

// TestAdopter is ordinary table testing, with the API server's
// resourceVersion checks turned on: each stored object has a
// resourceVersion, each update bumps it, and an update that carries an old
// one fails with a conflict. Expected actions need no resourceVersions:
// they are compared without them.
func TestAdopter(t *testing.T) {
	fixture.Table[string]{
		Wire:    adopter(Correct),
		Options: []fixture.Option{fixture.WithFidelity(fixture.ResourceVersions)},
		Rows: []fixture.Row{{
			Name:        "adopts a Deployment",
			Objects:     []runtime.Object{deployment(1)},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Update(adopted(false)), actions.UpdateStatus(adopted(true))},
		}, {
			Name:    "leaves an adopted Deployment alone",
			Objects: []runtime.Object{adopted(true)},
			Key:     "default/web",
		}},
	}.Run(t)
}

// TestAdopterStaleResourceVersionIsCaught: client-go's fakes accept the
// broken Adopter's stale second write; with ResourceVersions, the fixture
// refuses it as a real API server does.
func TestAdopterStaleResourceVersionIsCaught(t *testing.T) {
	writes := []actions.Action{actions.Update(adopted(false)), actions.UpdateStatus(adopted(true))}

	t.Run("the fakes hide it", func(t *testing.T) {
		f := fixture.New(t, fixture.WithObjects(deployment(1)))
		res := fixture.Sync(f, adopter(Broken)(f), "default/web")
		res.AssertErr(nil)
		res.AssertActions(writes)
	})
	t.Run("ResourceVersions reveals it", func(t *testing.T) {
		f := fixture.New(t, fixture.WithFidelity(fixture.ResourceVersions), fixture.WithObjects(deployment(1)))
		res := fixture.Sync(f, adopter(Broken)(f), "default/web")
		res.AssertErr(isConflict)
		res.AssertActions(writes) // both were sent; the second was refused
		t.Logf("caught, as intended: %v", res.Err)
	})
}
