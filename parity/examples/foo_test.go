package examples

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/examples/foo"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/fixture/adapter"
	"github.com/ctrltest/ctrltest/parity"
)

// TestFooParity runs the Foo controller's scenarios (examples/foo) on the
// fakes and on a real API server. The one divergence: the server defaults
// every Deployment (rollout strategy, revision history, progress deadline,
// and pod template fields such as imagePullPolicy and restartPolicy), the
// fakes none. It is harmless here because the controller compares only the
// replicas of the Deployment it finds with the Foo's; a controller that
// compared whole specs would update the Deployment on every sync against a
// real server, which this report would show as a write the fakes lack.
func TestFooParity(t *testing.T) {
	parity.Run(t, parity.Shared(t), foo.Table(), parity.Known{
		Kind:   parity.Defaulting,
		Reason: "the server defaults Deployments; the controller compares replicas only",
	})
}

// TestFooCasesParity runs the Foo controller's declarative cases
// (examples/foo/testdata/cases: a header and manifests per file, no Go
// code) on the fakes and on a real API server. The server defaults the
// Deployments, as in TestFooParity.
func TestFooCasesParity(t *testing.T) {
	cases := fixture.Cases[cache.ObjectName]{Dir: "../../examples/foo/testdata/cases", Wire: foo.Wire, Options: []fixture.Option{fixture.WithClientset(foo.Foos)}}
	rows := cases.Rows(t)
	parity.Run(t, parity.Shared(t), fixture.Table[cache.ObjectName]{Wire: cases.Wire, Options: cases.Options, Rows: rows},
		seedingRows(fixture.Table[cache.ObjectName]{Rows: rows}, parity.Defaulting, "the server defaults Deployments; the controller compares replicas only")...)
}

// TestFooTableOnServer runs the Foo table's own expectations on a real API
// server (adapter.WithServer in the table's options): each row's writes,
// events and error, then the idempotency check, whose Refresh waits for the
// real informers. Every row but one holds there as on the fakes. "updates
// the Deployment's replicas" expects the Deployment it seeded, and the
// controller sends back the Deployment it read, defaults and all: that row
// is compared by TestFooParity instead.
func TestFooTableOnServer(t *testing.T) {
	srv := parity.Shared(t)
	tb := foo.Table()
	tb.Options = append(tb.Options, adapter.WithServer(srv))
	rows := tb.Rows[:0]
	for _, row := range tb.Rows {
		if row.Name != "updates the Deployment's replicas" {
			rows = append(rows, row)
		}
	}
	if len(rows) != len(tb.Rows)-1 {
		t.Fatalf("the table has no row %q to leave out", "updates the Deployment's replicas")
	}
	tb.Rows = rows
	tb.Run(t)
}
