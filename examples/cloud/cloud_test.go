package cloud

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
	"github.com/ctrltest/ctrltest/tbtest"
)

func TestCloud(t *testing.T) { Table().Run(t) }

// The golden file shows the sync's calls beside its requests.
func TestCallsInGolden(t *testing.T) {
	tb := Table()
	tb.Checks.Golden = fixture.On
	tb.Rows = tb.Rows[:1]
	tb.Rows[0].WantCalls, tb.Rows[0].WantActions = nil, nil
	tb.Run(t)
}

// The fault sweep fails the cloud call once with the error the fake cloud
// declares: a controller that swallows it is caught, naming the call.
func TestSwallowedCloudError(t *testing.T) {
	tb := Table()
	for _, swallows := range []bool{false, true} {
		tb.Wire = Wire(swallows)
		report := tb.FaultSweep(t, tb.Rows[0])
		var calls []string
		for _, o := range report.Swallowed() {
			if o.Call != nil {
				calls = append(calls, o.Call.String()+": "+o.Fault)
			}
		}
		want := ""
		if swallows {
			want = "cloud.EnsureLoadBalancer(default/web): cloud: request throttled"
		}
		if got := strings.Join(calls, "; "); got != want {
			t.Errorf("swallows %v: swallowed calls %q; want %q\n%s", swallows, got, want, report)
		}
	}
}

// A second sync that calls the cloud to change nothing makes a redundant
// call, listed in the row's summary as a redundant write is; under a
// strict idempotency check it fails the row.
func TestRedundantCall(t *testing.T) {
	always := func(f *fixture.Fixture) fixture.SyncFunc[string] {
		cloud := NewFakeCloud(f, "203.0.113.10")
		return func(ctx context.Context, _ string) error {
			_, err := cloud.EnsureLoadBalancer(ctx, Service(""))
			return err
		}
	}
	for _, strict := range []bool{false, true} {
		row := fixture.Row{Name: "calls every time", Objects: []runtime.Object{Service("")}, Key: "default/web",
			WantCalls: []records.Call{{Service: "cloud", Method: "EnsureLoadBalancer", Args: "default/web"}},
			Checks:    fixture.Checks{FaultSweep: fixture.Off, CacheSweep: fixture.Off, EventSweep: fixture.Off}}
		if strict {
			row.Checks.Idempotency = fixture.Strict
		}
		rec := tbtest.Run(t, func(t testing.TB) { fixture.Table[string]{Wire: always}.RunRow(t, row) })
		switch {
		case !strict && rec.Failed():
			t.Errorf("want a passing row (its summary lists the redundant call):\n%s", rec)
		case strict && !strings.Contains(rec.String(), "the last made 0 write(s) and 1 call(s) that changed nothing"):
			t.Errorf("want the strict check's failure:\n%s", rec)
		}
	}
}

// A call that changed the cloud changes the world: the sync is Changed.
func TestCallChanges(t *testing.T) {
	f := fixture.New(t, fixture.WithObjects(Service("")))
	cloud := NewFakeCloud(f, "203.0.113.10")
	sync := func(ctx context.Context, _ string) error {
		_, err := cloud.EnsureLoadBalancer(ctx, Service(""))
		return err
	}
	first, second := fixture.Sync(f, sync, "default/web"), fixture.Sync(f, sync, "default/web")
	if !first.Changed || second.Changed || len(second.Calls) != 1 {
		t.Errorf("Changed %v then %v, with %d call(s); want true, then false with 1", first.Changed, second.Changed, len(second.Calls))
	}
}
