package webapp_test

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ctrltest/ctrltest/ctrlruntime"
	"github.com/ctrltest/ctrltest/ctrlruntime/examples/webapp"
	webappv1 "github.com/ctrltest/ctrltest/ctrlruntime/examples/webapp/api/v1"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/tbtest"
)

// BenchmarkReconcileRow compares, on the same objects (a new WebApp beside
// an unrelated Deployment and Service), one reconcile of the webapp
// Reconciler:
//
//   - impl=fake: controller-runtime's fake.NewClientBuilder().WithObjects(...).Build()
//     and one Reconcile, as tests written on the fake client do;
//   - impl=ctrltest: a fixture and its environment, and one reconcile
//     (ctrlruntime.Reconcile): the recorded requests, events and result;
//   - impl=ctrltest-row: a full table row (fixture.Table.RunRow, wired by ctrlruntime.Wire): the
//     reconcile, its assertions and the idempotency check (a second
//     reconcile on the world the first left).
func BenchmarkReconcileRow(b *testing.B) {
	objs := func() []runtime.Object {
		return []runtime.Object{app(), deployment(1), service()}
	}
	seeds := func() []runtime.Object {
		o := objs()
		o[1].(interface{ SetName(string) }).SetName("other")
		o[2].(interface{ SetName(string) }).SetName("other")
		return o
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	if err := webappv1.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	clock := func() time.Time { return now }

	b.Run("impl=fake", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c := fake.NewClientBuilder().WithScheme(scheme).WithRuntimeObjects(seeds()...).WithStatusSubresource(&webappv1.WebApp{}).Build()
			r := &webapp.Reconciler{Client: c, Scheme: scheme, Recorder: record.NewFakeRecorder(10), Now: clock}
			if res, err := r.Reconcile(b.Context(), req); err != nil || res.RequeueAfter != webapp.PendingRequeue {
				b.Fatalf("reconcile: %v, %v", res, err)
			}
		}
	})
	b.Run("impl=ctrltest", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			op := tbtest.PerOp(b)
			f := fixture.New(op, WebApps, fixture.WithObjects(seeds()...))
			env := ctrlruntime.NewEnv(f, ctrlruntime.Cached(), ctrlruntime.Watching(&webappv1.WebApp{}))
			r := &webapp.Reconciler{Client: env.Client, Scheme: env.Scheme, Recorder: env.Recorder, Now: clock}
			res, got := ctrlruntime.Reconcile(f, r, req)
			if res.Err != nil || got.RequeueAfter != webapp.PendingRequeue || len(res.Actions()) != 4 {
				b.Fatalf("reconcile: %v, %v, %d writes", got, res.Err, len(res.Actions()))
			}
			op.Done()
		}
	})
	b.Run("impl=ctrltest-row", func(b *testing.B) {
		b.ReportAllocs()
		tb := newTable()
		tb.Checks = fixture.Checks{}
		// The row's expectations: what one reconcile does.
		warm := tbtest.PerOp(b)
		f := fixture.New(warm, WebApps, fixture.WithObjects(seeds()...))
		env := ctrlruntime.NewEnv(f, ctrlruntime.Cached())
		first, _ := ctrlruntime.Reconcile(f, &webapp.Reconciler{Client: env.Client, Scheme: env.Scheme, Recorder: env.Recorder, Now: clock}, req)
		warm.Done()
		row := fixture.Row{Name: "new", Key: key, WantReturned: pending,
			WantActions: first.Actions(), WantEvents: first.Events}
		for b.Loop() {
			op := tbtest.PerOp(b)
			row.Objects = seeds()
			res := tb.RunRow(op, row)
			if len(res.Actions()) != 4 {
				b.Fatalf("%d writes, want 4", len(res.Actions()))
			}
			op.Done()
		}
	})
}
