package checks

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

// now is the time of the fixtures' fake clock.
var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func statusWriter(v Variant) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		return NewStatusWriter(f.Kube(), f.KubeInformers().Apps().V1().Deployments(), f.Clock(), v).Sync
	}
}

// atGeneration is the Deployment at generation 2, whose status reports
// generation observed (0: none).
func atGeneration(observed int64) *appsv1.Deployment {
	d := deployment(1)
	d.Generation = 2
	if observed > 0 {
		d.Status.ObservedGeneration = observed
		d.Status.Conditions = []appsv1.DeploymentCondition{{
			Type: ConditionObserved, Status: corev1.ConditionTrue, Reason: "GenerationObserved", LastUpdateTime: metav1.NewTime(now),
		}}
	}
	return d
}

// TestStatusWriter is ordinary table testing: the idempotency check is on
// by default, so each row also syncs its key a second time, on the world the
// first sync left, and fails if that sync writes anything.
func TestStatusWriter(t *testing.T) {
	fixture.Table[string]{
		Wire:    statusWriter(Correct),
		Options: []fixture.Option{fixture.WithClock(testingclock.NewFakeClock(now))},
		Rows: []fixture.Row{{
			Name:        "reports a new generation",
			Objects:     []runtime.Object{atGeneration(0)},
			Key:         "default/web",
			WantActions: []actions.Action{actions.UpdateStatus(atGeneration(2))},
		}, {
			Name:    "leaves a current status alone",
			Objects: []runtime.Object{atGeneration(2)},
			Key:     "default/web",
		}},
	}.Run(t)
}

// TestStatusWriterHotLoopIsCaught: the broken StatusWriter's first sync is
// right, so a test of one sync passes; syncing again shows the hot loop.
func TestStatusWriterHotLoopIsCaught(t *testing.T) {
	for _, v := range []Variant{Correct, Broken} {
		t.Run(v.String(), func(t *testing.T) {
			f := fixture.New(t, fixture.WithClock(testingclock.NewFakeClock(now)), fixture.WithObjects(atGeneration(0)))
			sync := statusWriter(v)(f)
			fixture.Sync(f, sync, "default/web").AssertActions([]actions.Action{actions.UpdateStatus(atGeneration(2))})

			report := fixture.CheckIdempotent(f, sync, "default/web")
			if v == Correct {
				if report != "" {
					t.Errorf("the correct StatusWriter is reported:\n%s", report)
				}
				return
			}
			for _, want := range []string{"not idempotent", "update apps/v1 deployments/status default/web"} {
				if !strings.Contains(report, want) {
					t.Errorf("the hot loop is not caught: the report lacks %q:\n%s", want, report)
				}
			}
			t.Logf("caught, as intended:\n%s", report)
		})
	}
}
