package checks

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

func exporter(f *fixture.Fixture) fixture.SyncFunc[string] {
	return NewExporter(f.Kube(), f.KubeInformers().Apps().V1().Deployments(), f.KubeInformers().Core().V1().ConfigMaps()).Sync
}

// finalized is the Deployment with the Exporter's finalizer.
func finalized() *appsv1.Deployment {
	d := deployment(1)
	d.Finalizers = []string{ExportFinalizer}
	return d
}

// TestExporter: Row.WantActions are the writes of the first sync; with
// Row.WantObjects, the row then syncs until the world settles (at most
// Row.MaxSteps syncs, ten by default) and compares the objects the
// clientsets then hold.
func TestExporter(t *testing.T) {
	stale := Export(deployment(1))
	stale.Data["web"] = "nginx:1.28"
	deleted := finalized()
	deleted.DeletionTimestamp = &metav1.Time{Time: now}
	gone := deleted.DeepCopy()
	gone.Finalizers = nil

	fixture.Table[string]{
		Wire: exporter,
		Rows: []fixture.Row{{
			Name:        "exports a new Deployment in two syncs",
			Objects:     []runtime.Object{deployment(1)},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Update(finalized())}, // step 1 only
			// By design, the second sync writes too (step 2). With
			// WantObjects, convergence replaces the idempotency check:
			// the syncs must settle, and on these objects.
			WantObjects: []runtime.Object{finalized(), Export(deployment(1))},
		}, {
			Name:        "updates a stale export",
			Objects:     []runtime.Object{finalized(), stale},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Update(Export(deployment(1)))},
			WantObjects: []runtime.Object{finalized(), Export(deployment(1))},
		}, {
			Name:        "deletes the export of a deleted Deployment",
			Objects:     []runtime.Object{deleted, Export(deployment(1))},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Delete(Export(deployment(1))), actions.Update(gone)},
			// Removing the last finalizer of a deleted object deletes it.
			WantObjects: []runtime.Object{fixture.Absent(gone), fixture.Absent(Export(deployment(1)))},
		}},
	}.Run(t)
}

// TestConvergeShowsTheSteps drives the Exporter with fixture.Converge, the
// building block of Row.WantObjects, and reads its steps; a hot loop, the
// broken StatusWriter's, never settles.
func TestConvergeShowsTheSteps(t *testing.T) {
	t.Run("Exporter", func(t *testing.T) {
		f := fixture.New(t, fixture.WithObjects(deployment(1)))
		c := fixture.Converge(f, exporter(f), "default/web", 10)
		if !c.Converged || len(c.Steps) != 3 {
			t.Errorf("want convergence in 3 steps (finalizer, export, nothing left to do):\n%s", c)
		}
		f.AssertObjects(finalized(), Export(deployment(1)))
		t.Logf("%s", c)
	})
	t.Run("Broken StatusWriter", func(t *testing.T) {
		f := fixture.New(t, fixture.WithObjects(atGeneration(0)))
		sw := NewStatusWriter(f.Kube(), f.KubeInformers().Apps().V1().Deployments(), &ticking{now: now}, Broken)
		c := fixture.Converge(f, sw.Sync, "default/web", 5)
		if c.Converged || !strings.Contains(c.String(), "did not converge after 5 step(s)") {
			t.Errorf("the hot loop is not caught:\n%s", c)
		}
		t.Logf("caught, as intended:\n%s", c)
	})
}
