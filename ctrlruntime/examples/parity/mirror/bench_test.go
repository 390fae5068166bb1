package mirrorparity

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/ctrlruntime/examples/mirror"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/fixture/adapter"
	"github.com/ctrltest/ctrltest/parity"
	"github.com/ctrltest/ctrltest/tbtest"
)

// BenchmarkReconcileRowServer compares one reconcile of the mirror
// table's first row on the fixture's world (impl=model) and on a real
// kube-apiserver through controller-runtime's client (impl=server: fresh
// namespaces, the seed created through the API, informers synced, the
// reconcile, the cleanup).
func BenchmarkReconcileRowServer(b *testing.B) {
	srv := parity.Shared(b)
	tb := mirror.Table()
	row := tb.Rows[0]
	run := func(b *testing.B, opts ...fixture.Option) {
		b.ReportAllocs()
		for b.Loop() {
			op := tbtest.PerOp(b)
			objs := make([]runtime.Object, len(row.Objects))
			for i, o := range row.Objects {
				objs[i] = o.DeepCopyObject()
			}
			f := fixture.New(op, append(opts, fixture.WithObjects(objs...))...)
			res := fixture.Sync(f, tb.Wire(f), row.Key)
			if res.Err != nil || len(res.Actions()) != 1 {
				b.Fatalf("reconcile: %v, %d writes", res.Err, len(res.Actions()))
			}
			op.Done()
		}
	}
	b.Run("impl=model", func(b *testing.B) { run(b) })
	b.Run("impl=model-noleakcheck", func(b *testing.B) { run(b, fixture.WithChecks(fixture.Checks{Leaks: fixture.Off})) })
	b.Run("impl=server", func(b *testing.B) { run(b, adapter.WithServer(srv)) })
}
