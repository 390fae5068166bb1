package checks

import (
	"strings"
	"testing"

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
