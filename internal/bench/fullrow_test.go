package bench

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	core "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2/ktesting"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/controller"
	"github.com/ctrltest/ctrltest/examples/owner"
	ctrltest "github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
	"github.com/ctrltest/ctrltest/tbtest"
)

// ---------------------------------------------------------------------------
// Full rows (issue 11): a fixture.Table row with the server model and every
// default check, against the hand-written fixture's single sync.
// ---------------------------------------------------------------------------

// fullRowVariant is one way of testing one controller's case in
// BenchmarkFullRow.
type fullRowVariant struct {
	// controller is "foo" (the reference controller, controller.Controller,
	// on the reference case of bench_test.go) or "owner" (examples/owner,
	// a Deployment → ReplicaSet controller, on its row ownerRowName).
	controller string
	// impl is
	//   - "handwritten": the cheapest hand-written fixture's single sync
	//     (handwrittenRow, or the kube-controller-manager style ownerFixture)
	//     with informers never started and no event broadcaster: the shape
	//     upstream's fixtures take with startInformers false;
	//   - "handwritten-upstream": the same fixture as upstream's run uses it
	//     (sample-controller's runController and kube-controller-manager's
	//     run_ with startInformers true): the informers are started for the
	//     sync. The controllers are built as in the other variants: the
	//     reference controller takes its recorder, where sample-controller's
	//     NewController builds an event broadcaster (see BenchmarkRow's
	//     handwritten-broadcaster), which a ctrltest row of that controller
	//     would build as well. On NewSimpleClientset, the cheaper tracker
	//     (sample-controller's fixture now uses NewClientset, which costs
	//     about ten times as much per row; see BenchmarkRow's
	//     backend=fieldmanaged);
	//   - "ctrltest-sync": fixture.New and one fixture.Sync, compared with
	//     AssertActions (BenchmarkRow's impl=ctrltest), on the server model;
	//   - "ctrltest-row": fixture.Table.RunRow with the default options and
	//     the quick checks (go test -short's): the server model, the row's
	//     action, event, queue and error checks, the idempotency/convergence
	//     check (a second sync on the world the first left, judged on the
	//     stored world) and the cache-mutation check; no golden file, no
	//     sweeps.
	impl string
}

func (v fullRowVariant) String() string {
	return fmt.Sprintf("controller=%s/impl=%s", v.controller, v.impl)
}

// fullRowVariants are the variants BenchmarkFullRow runs, at every N of
// fullRowSizes.
var fullRowVariants = []fullRowVariant{
	{"foo", "handwritten"},
	{"foo", "handwritten-upstream"},
	{"foo", "ctrltest-sync"},
	{"foo", "ctrltest-row"},
	{"owner", "handwritten"},
	{"owner", "handwritten-upstream"},
	{"owner", "ctrltest-sync"},
	{"owner", "ctrltest-row"},
}

// fullRowSizes are the numbers of unrelated objects (see worldOf) seeded
// beside each case in BenchmarkFullRow.
var fullRowSizes = []int{0, 1000}

// wantWrites returns the case's writes, as "verb resource[/subresource]".
func (v fullRowVariant) wantWrites() []string {
	if v.controller == "owner" {
		return wantOwnerWrites
	}
	return wantWrites
}

// wantChecks is what a ctrltest-row variant's passing row must say it
// checked ("checks: …" in its log): the full row really ran its default
// checks. Both controllers write only what differs, so the second sync
// makes no write.
const wantChecks = "checks: settled after 2 sync(s); caches unchanged"

// run runs the variant's case once, with w's unrelated objects seeded, in a
// test of its own that ends before run returns. When check is not nil it
// gets the writes of the (first) sync, as "verb resource[/subresource]",
// and the test's log.
func (v fullRowVariant) run(tb testing.TB, w *world, check func(writes []string, log string)) {
	t := tbtest.PerOp(tb)
	defer t.Done()
	var writes []string
	switch v.impl {
	case "handwritten", "handwritten-upstream":
		upstream := v.impl == "handwritten-upstream"
		var acts []core.Action
		if v.controller == "owner" {
			f := handwrittenOwnerRow(t, w, upstream)
			acts = f.client.Actions()
		} else {
			f := handwrittenRow(t, w, simple, upstream, false)
			acts = append(f.kubeclient.Actions(), f.client.Actions()...)
		}
		if check == nil {
			return
		}
		for _, a := range acts {
			switch a.GetVerb() {
			case "get", "list", "watch":
				continue
			}
			writes = append(writes, writeString(a.GetVerb(), a.GetResource().Resource, a.GetSubresource()))
		}
	default:
		var res *ctrltest.Result
		switch {
		case v.controller == "owner" && v.impl == "ctrltest-sync":
			res = ctrltestOwnerSync(t, w)
		case v.controller == "owner":
			res = ownerFullTable().RunRow(t, ownerFullRow(w))
		case v.impl == "ctrltest-sync":
			res = ctrltestRow(t, w, "ctrltest", simple, false)
		default:
			res = fooFullTable.RunRow(t, fooFullRow(w))
		}
		if check == nil {
			return
		}
		for _, a := range res.Actions() {
			writes = append(writes, writeString(a.Verb, a.Resource.Resource, a.Subresource))
		}
	}
	check(writes, t.Logged())
}

// verify runs v once and fails tb unless the writes are exactly the case's
// and, for a full row, the row says it ran its default checks.
func (v fullRowVariant) verify(tb testing.TB, w *world) {
	tb.Helper()
	v.run(tb, w, func(writes []string, log string) {
		want := v.wantWrites()
		if strings.Join(writes, ", ") != strings.Join(want, ", ") {
			tb.Fatalf("%v, N=%d: writes %q, want %q", v, w.n, writes, want)
		}
		if v.impl == "ctrltest-row" && !strings.Contains(log, wantChecks) {
			tb.Fatalf("%v, N=%d: the row's log does not say %q; it is:\n%s", v, w.n, wantChecks, log)
		}
	})
}

// quickChecks are the checks go test -short runs: the sweeps off. The
// full rows measure them, as the figures of docs/performance.md always
// have; BenchmarkKCM's every-check variant measures the sweeps.
var quickChecks = ctrltest.Checks{FaultSweep: ctrltest.Off, CacheSweep: ctrltest.Off, EventSweep: ctrltest.Off}

// fooFullTable is the reference controller's table for full rows: the
// controller wired as examples/foo wires it, ctrltest's default options,
// the quick checks.
var fooFullTable = ctrltest.Table[cache.ObjectName]{Wire: wire, Options: []ctrltest.Option{ctrltest.WithClientset(foos)}, Checks: quickChecks}

// fooFullRow is the reference case as a table row (referenceTable's row),
// with w's unrelated objects seeded beside the Foo.
func fooFullRow(w *world) ctrltest.Row {
	foo := newFoo()
	return ctrltest.Row{
		Name:        "reference",
		Key:         testKey,
		Objects:     append([]k8sruntime.Object{foo}, w.unrelated...),
		WantActions: []actions.Action{actions.Create(newDeployment(foo)), actions.UpdateStatus(withStatus(foo, 0))},
		WantEvents:  []records.Event{ctrltest.NewEvent(foo, corev1.EventTypeNormal, controller.SuccessSynced, controller.MessageResourceSynced)},
	}
}

// ownerFullTable is the owner example's own table (owner.Table): its Wire
// and options, without its rows (RunRow is given the row).
var ownerFullTable = sync.OnceValue(func() ctrltest.Table[cache.ObjectName] {
	tb := owner.Table()
	tb.Rows = nil
	tb.Checks = quickChecks
	return tb
})

// ownerFullRow is the owner example's row ownerRowName (built here, per op,
// as the hand-written fixture builds its case; TestOwnerFullRowIsTheExamples
// checks that it is the example's row), with w's unrelated objects seeded
// beside its Deployment.
func ownerFullRow(w *world) ctrltest.Row {
	web := ownerDeployment(3, 3)
	return ctrltest.Row{
		Name:    ownerRowName,
		Objects: append([]k8sruntime.Object{web}, w.unrelated...),
		Key:     ownerKey,
		WantActions: []actions.Action{
			actions.Create(ownerReplicaSet(web, 3)),
			actions.UpdateStatus(ownerDeployment(3, 0)),
		},
	}
}

// ctrltestOwnerSync is the owner case with ctrltest as BenchmarkRow's
// impl=ctrltest does it: build the world, seed it, wire the controller, sync
// once, compare the writes.
func ctrltestOwnerSync(t testing.TB, w *world) *ctrltest.Result {
	d := ownerDeployment(3, 3)
	f := ctrltest.New(t, ctrltest.WithObjects(d), ctrltest.WithObjects(w.unrelated...))
	res := ctrltest.Sync(f, ownerFullTable().Wire(f), ownerKey)
	if res.Err != nil {
		t.Errorf("sync: %v", res.Err)
	}
	want := []actions.Action{actions.Create(ownerReplicaSet(d, 3)), actions.UpdateStatus(ownerDeployment(3, 0))}
	res.AssertActions(want)
	return res
}

// handwrittenOwnerRow is upstream's TestSyncDeploymentCreatesReplicaSet in
// shape, on the owner case, with w's unrelated objects added to f.objects
// and their Deployments to f.dLister; startInformers as ownerFixture.run.
func handwrittenOwnerRow(t testing.TB, w *world, startInformers bool) *ownerFixture {
	f := newOwnerFixture(t)
	_, ctx := ktesting.NewTestContext(t)

	d := ownerDeployment(3, 3)
	f.dLister = append(f.dLister, d)
	f.objects = append(f.objects, d)
	f.dLister = append(f.dLister, w.deployments...)
	f.objects = append(f.objects, w.unrelated...)

	f.expectCreateRSAction(ownerReplicaSet(d, 3))
	f.expectUpdateDeploymentStatusAction(ownerDeployment(3, 0))

	f.run(ctx, ownerKey, startInformers)
	return f
}

// BenchmarkFullRow measures, per op, a full fixture.Table row (RunRow with
// the default checks, on the server model) against the hand-written
// fixture's single sync, on the reference controller (controller=foo) and on
// the owner example (controller=owner), with N unrelated objects seeded.
// impl=ctrltest-sync, a single fixture.Sync, shows what the row's checks
// add. Put the implementations side by side with
//
//	go tool -modfile=../../hack/tools/go.mod benchstat -col /impl new.txt
//
// Besides time, bytes and allocs, each reports cpu-ns/op: the CPU time
// (user and system, every thread: the garbage collector's too) the process
// used per op, which a loaded machine disturbs less than the wall time.
func BenchmarkFullRow(b *testing.B) {
	for _, v := range fullRowVariants {
		for _, n := range fullRowSizes {
			b.Run(fmt.Sprintf("%v/N=%d", v, n), func(b *testing.B) {
				w := worldOf(n)
				baseline := runtime.NumGoroutine()
				v.verify(b, w)
				b.ReportAllocs()
				cpu0, cpuOK := processCPU()
				for b.Loop() {
					v.run(b, w, nil)
				}
				b.StopTimer()
				if cpu1, ok := processCPU(); ok && cpuOK {
					b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
				}
				b.ReportMetric(float64(goroutinesLeft(baseline)), "goroutines-left")
			})
		}
	}
}

// TestFullRowVariantsAgree checks that every variant of BenchmarkFullRow
// makes exactly its case's writes, with a few unrelated objects seeded, and
// that the full rows ran their default checks.
func TestFullRowVariantsAgree(t *testing.T) {
	w := worldOf(10)
	for _, v := range fullRowVariants {
		t.Run(v.String(), func(t *testing.T) { v.verify(t, w) })
	}
}

// TestOwnerFullRowIsTheExamples checks that the owner case's row, built by
// ownerFullRow, is the owner example's own row ownerRowName.
func TestOwnerFullRowIsTheExamples(t *testing.T) {
	for _, row := range owner.Table().Rows {
		if row.Name != ownerRowName {
			continue
		}
		if d := cmp.Diff(row, ownerFullRow(worldOf(0)), cmp.Exporter(func(reflect.Type) bool { return true })); d != "" {
			t.Fatalf("ownerFullRow is not examples/owner's row %q (-example +bench):\n%s", ownerRowName, d)
		}
		return
	}
	t.Fatalf("examples/owner's table has no row %q", ownerRowName)
}
