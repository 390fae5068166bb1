package examples

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/examples/foo"
	"github.com/ctrltest/ctrltest/fixture"
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
