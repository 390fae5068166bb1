package checks

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

// TestStatusWriter is ordinary table testing, on StatusWriterTable
// (tables.go): the idempotency check is on by default, so each row also
// syncs its key a second time, on the world the first sync left, and fails
// if that sync writes anything.
func TestStatusWriter(t *testing.T) {
	StatusWriterTable().Run(t)
}

// ticking is a clock that moves one second each time it is read, as time
// moves between the syncs of a running controller.
type ticking struct {
	mu  sync.Mutex
	now time.Time
}

func (c *ticking) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second)
	return c.now
}

func (c *ticking) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// TestStatusWriterHotLoopIsCaught: the broken StatusWriter's first sync is
// right, so a test of one sync passes; syncing again shows the hot loop.
// Its second write stamps a new time in the condition, so it changes the
// stored world: a new resourceVersion, a watch event, another sync. With a
// clock that stands still the same write changes nothing: a redundant
// request, which only a strict idempotency check (Checks.Idempotency:
// fixture.Strict) fails.
func TestStatusWriterHotLoopIsCaught(t *testing.T) {
	for _, v := range []Variant{Correct, Broken} {
		t.Run(v.String(), func(t *testing.T) {
			f := fixture.New(t, fixture.WithObjects(atGeneration(0)))
			sync := NewStatusWriter(f.Kube(), f.KubeInformers().Apps().V1().Deployments(), &ticking{now: now}, v).Sync
			fixture.Sync(f, sync, "default/web").AssertActions([]actions.Action{actions.UpdateStatus(atGeneration(2))},
				actions.CmpOptions(cmpopts.IgnoreFields(appsv1.DeploymentCondition{}, "LastUpdateTime")))

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
	t.Run("Broken, the clock standing still", func(t *testing.T) {
		row := fixture.Row{Name: "redundant", Objects: []runtime.Object{atGeneration(0)}, Key: "default/web",
			WantActions: []actions.Action{actions.UpdateStatus(atGeneration(2))}}
		table := fixture.Table[string]{Wire: statusWriter(Broken), Options: []fixture.Option{fixture.WithClock(testingclock.NewFakeClock(now))}}
		if res := table.RunRow(t, row); len(res.Redundant) != 0 {
			t.Errorf("the first sync's write changed the world; Redundant = %v", res.Redundant)
		}
		table.Checks.Idempotency = fixture.Strict
		mustCatch(t, "Checks.Idempotency is Strict", func(tb testing.TB) { table.RunRow(tb, row) })
	})
}
