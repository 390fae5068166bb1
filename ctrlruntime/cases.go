package ctrlruntime

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/golden"
)

// Cases runs a directory of declarative YAML cases (see fixture.Cases: a
// SyncCase header whose key is the request, "namespace/name", then the
// seed objects) against a Reconciler, each checked against its golden file
// with the idempotency check. The golden file shows the reconcile.Result
// ("returned: requeue after 10s").
type Cases struct {
	// Dir holds the case files, for example "testdata/cases".
	Dir string
	// Wire builds the reconciler on each case's environment.
	Wire func(env *Env) reconcile.Reconciler
	// Options apply to every case's fixture (fixture.WithTypes here).
	Options []fixture.Option
	// ClientOptions apply to the environment's clients (WithIndex,
	// Watching, UnsafeDisableDeepCopy).
	ClientOptions []Option
	// Uncached makes Env.Client read straight from the world.
	Uncached bool
	// Parallel runs the cases in parallel.
	Parallel bool
	// GoldenOptions apply to every case's golden rendering.
	GoldenOptions []golden.Option
	// GoldenDir, when set, holds the golden files instead of Dir.
	GoldenDir string
}

// Run runs every case of the directory as a subtest of t.
func (c Cases) Run(t *testing.T) {
	t.Helper()
	if c.Wire == nil {
		t.Fatal("ctrlruntime.Cases: Wire is nil")
	}
	opts := c.ClientOptions
	if !c.Uncached {
		opts = append([]Option{Cached()}, opts...)
	}
	fixture.Cases[string]{
		Dir: c.Dir,
		Wire: func(f *fixture.Fixture) fixture.SyncFunc[string] {
			f.T().Helper()
			r := c.Wire(NewEnv(f, opts...))
			if r == nil {
				f.T().Fatal("ctrlruntime.Cases: Wire returned a nil reconciler")
			}
			first := true
			return SyncFunc(r, func(req reconcile.Request, res reconcile.Result) {
				f.SetReturned(FormatResult(res))
				if first {
					first = false
					f.T().Logf("reconcile %s: %s", Key(req), FormatResult(res))
				}
			})
		},
		Options:       c.Options,
		Parallel:      c.Parallel,
		GoldenOptions: c.GoldenOptions,
		GoldenDir:     c.GoldenDir,
	}.Run(t)
}
