package bench

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/applyconfigurations"
	kubeinformers "k8s.io/client-go/informers"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/controller"
	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/controller/generated/applyconfiguration"
	"github.com/ctrltest/ctrltest/controller/generated/clientset/versioned/fake"
	informers "github.com/ctrltest/ctrltest/controller/generated/informers/externalversions"
	ctrltest "github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/golden"
	"github.com/ctrltest/ctrltest/records"
	"github.com/ctrltest/ctrltest/tbtest"
)

// TestMain fails the run when a test or a benchmark leaves a goroutine
// behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// ---------------------------------------------------------------------------
// The reference case.
//
// One Foo (default/test, replicas 1) whose status says 1 available replica
// and whose Deployment does not exist yet. The controller creates the
// Deployment; the created Deployment has 0 available replicas, which differs
// from the Foo's status, so it then updates the Foo's status to 0. The
// writes are exactly [create deployments, update foos/status] (see
// wantWrites; every benchmark checks it once, outside its timed loop).
// ---------------------------------------------------------------------------

const (
	testNamespace = metav1.NamespaceDefault
	testName      = "test"
	testKey       = testNamespace + "/" + testName
)

// wantWrites are the reference case's writes, as "verb resource[/subresource]".
var wantWrites = []string{"create deployments", "update foos/status"}

// newFoo is the seed Foo (sample-controller's newFoo, with the status that
// makes the controller write it).
func newFoo() *v1alpha1.Foo {
	return &v1alpha1.Foo{
		TypeMeta: metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{
			Name:      testName,
			Namespace: testNamespace,
			UID:       "foo-uid",
		},
		Spec:   v1alpha1.FooSpec{DeploymentName: testName, Replicas: ptr.To[int32](1)},
		Status: v1alpha1.FooStatus{AvailableReplicas: 1},
	}
}

// newDeployment is the Deployment the controller creates for foo
// (sample-controller's tests call the controller package's newDeployment;
// ours is unexported, so it is spelled out here as in examples/foo).
func newDeployment(foo *v1alpha1.Foo) *appsv1.Deployment {
	labels := map[string]string{"app": "nginx", "controller": foo.Name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name:      foo.Spec.DeploymentName,
			Namespace: foo.Namespace,
			OwnerReferences: []metav1.OwnerReference{
				*metav1.NewControllerRef(foo, v1alpha1.SchemeGroupVersion.WithKind("Foo")),
			},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(*foo.Spec.Replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "nginx", "controller": foo.Name}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "nginx", Image: "nginx:latest"}},
				},
			},
		},
	}
}

// withStatus is foo after the controller reported availableReplicas.
func withStatus(foo *v1alpha1.Foo, available int32) *v1alpha1.Foo {
	foo = foo.DeepCopy()
	foo.Status.AvailableReplicas = available
	return foo
}

// ---------------------------------------------------------------------------
// The unrelated objects.
// ---------------------------------------------------------------------------

// sizes are the numbers of unrelated objects seeded beside the Foo. N counts
// objects, not pairs: N/2 Deployments and N/2 ConfigMaps.
var sizes = []int{0, 10, 100, 1000, 10000}

// world is the N unrelated objects of a benchmark, built once per N (building
// test data is the test's cost, the same for both fixtures, and not what is
// measured).
type world struct {
	n int
	// unrelated holds N objects: Deployments and ConfigMaps, alternating, in
	// ten namespaces other than the Foo's. None is controlled by a Foo.
	unrelated []k8sruntime.Object
	// deployments are the unrelated Deployments, for the hand-written
	// fixture's deploymentLister slice.
	deployments []*appsv1.Deployment
}

var (
	worldsMu sync.Mutex
	worlds   = map[int]*world{}
)

func worldOf(n int) *world {
	worldsMu.Lock()
	defer worldsMu.Unlock()
	if w, ok := worlds[n]; ok {
		return w
	}
	w := &world{n: n}
	for i := range n {
		ns := fmt.Sprintf("other-%d", i%10)
		name := fmt.Sprintf("unrelated-%d", i)
		labels := map[string]string{"app": name}
		if i%2 == 0 {
			d := &appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-d" + name), Labels: labels},
				Spec: appsv1.DeploymentSpec{
					Replicas: ptr.To[int32](2),
					Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: labels},
						Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}},
					},
				},
				Status: appsv1.DeploymentStatus{Replicas: 2, AvailableReplicas: 2},
			}
			w.unrelated = append(w.unrelated, d)
			w.deployments = append(w.deployments, d)
			continue
		}
		w.unrelated = append(w.unrelated, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-c" + name), Labels: labels},
			Data:       map[string]string{"config.yaml": "key: value\n"},
		})
	}
	worlds[n] = w
	return w
}

// ---------------------------------------------------------------------------
// The per-iteration test.
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// One row, three ways.
// ---------------------------------------------------------------------------

// variant is one way of testing the reference case.
type variant struct {
	// impl is "handwritten", "handwritten-broadcaster" (the hand-written
	// fixture that also builds upstream's real event broadcaster),
	// "ctrltest" or "ctrltest-newclientset" (ctrltest with the fake
	// packages' NewClientset registered; backend=fieldmanaged only).
	impl      string
	backend   backend
	informers bool
}

func (v variant) String() string {
	inf := "off"
	if v.informers {
		inf = "on"
	}
	return fmt.Sprintf("impl=%s/backend=%s/informers=%s", v.impl, v.backend, inf)
}

// rowVariants are the variants BenchmarkRow runs at every N.
var rowVariants = []variant{
	{"handwritten", simple, false},       // sample-controller style, informers never started
	{"handwritten", simple, true},        // older sample-controller style: start, WaitForCacheSync, sync
	{"handwritten", fieldManaged, false}, // NewClientset, informers never started
	{"handwritten", fieldManaged, true},  // today's upstream style: NewClientset, informers started
	{"ctrltest", simple, false},          // ctrltest's default mode
	{"ctrltest", simple, true},           // ctrltest's informer mode
	{"ctrltest", fieldManaged, false},    // KubeFieldManaged and a FieldManaged Foo registration
	{"ctrltest", fieldManaged, true},
}

// newClientsetVariants register the fake packages' NewClientset with
// ctrltest, with the options of backend=fieldmanaged: the server model
// serves the writes and holds the objects in a simple tracker, so they
// cost what impl=ctrltest/backend=fieldmanaged does, plus building
// NewClientset's unused tracker. (Until the model replaced that tracker,
// client-go's rebuilt a REST mapper of the whole kubernetes scheme on every
// write, seeds included: these ran up to N=1,000 only.)
var newClientsetVariants = []variant{
	{"ctrltest-newclientset", fieldManaged, false},
	{"ctrltest-newclientset", fieldManaged, true},
}

// broadcasterVariants run at N=0 only: the broadcaster's cost does not
// depend on the seed.
var broadcasterVariants = []variant{
	{"handwritten-broadcaster", simple, false},
	{"handwritten-broadcaster", simple, true},
	{"handwritten-broadcaster", fieldManaged, false},
	{"handwritten-broadcaster", fieldManaged, true},
}

// allVariants are every variant the benchmarks run.
func allVariants() []variant {
	return append(append(append([]variant(nil), rowVariants...), newClientsetVariants...), broadcasterVariants...)
}

// run runs the reference case once, with w's unrelated objects seeded, in a
// test of its own that ends before run returns. When check is not nil it
// gets the writes the controller made, as "verb resource[/subresource]".
func (v variant) run(tb testing.TB, w *world, check func(writes []string)) {
	t := tbtest.PerOp(tb)
	defer t.Done()
	switch v.impl {
	case "ctrltest", "ctrltest-newclientset":
		res := ctrltestRow(t, w, v.impl, v.backend, v.informers)
		if check != nil {
			var writes []string
			for _, a := range res.Actions() {
				writes = append(writes, writeString(a.Verb, a.Resource.Resource, a.Subresource))
			}
			check(writes)
		}
	default:
		f := handwrittenRow(t, w, v.backend, v.informers, v.impl == "handwritten-broadcaster")
		if check != nil {
			var writes []string
			for _, a := range append(f.kubeclient.Actions(), f.client.Actions()...) {
				switch a.GetVerb() {
				case "get", "list", "watch":
					continue
				}
				writes = append(writes, writeString(a.GetVerb(), a.GetResource().Resource, a.GetSubresource()))
			}
			check(writes)
		}
	}
}

func writeString(verb, resource, subresource string) string {
	if subresource != "" {
		resource += "/" + subresource
	}
	return verb + " " + resource
}

// verify runs v once and fails tb unless the writes are exactly wantWrites.
func (v variant) verify(tb testing.TB, w *world) {
	tb.Helper()
	v.run(tb, w, func(writes []string) {
		if strings.Join(writes, ", ") != strings.Join(wantWrites, ", ") {
			tb.Fatalf("%v, N=%d: writes %q, want %q", v, w.n, writes, wantWrites)
		}
	})
}

// handwrittenRow is sample-controller's TestCreatesDeployment on the
// reference case, with w's unrelated objects added to f.kubeobjects and
// their Deployments to f.deploymentLister.
func handwrittenRow(t testing.TB, w *world, b backend, startInformers, broadcaster bool) *fixture {
	f := newFixture(t, b, broadcaster)
	foo := newFoo()
	_, ctx := ktesting.NewTestContext(t)

	f.fooLister = append(f.fooLister, foo)
	f.objects = append(f.objects, foo)
	f.deploymentLister = append(f.deploymentLister, w.deployments...)
	f.kubeobjects = append(f.kubeobjects, w.unrelated...)

	expDeployment := newDeployment(foo)
	f.expectCreateDeploymentAction(expDeployment)
	f.expectUpdateFooStatusAction(withStatus(foo, 0))

	f.run(ctx, getRef(foo, t), startInformers)
	return f
}

// The Foo clientset's registrations.
var (
	// foos: the simple object tracker.
	foos = ctrltest.Register(fake.NewSimpleClientset, fake.AddToScheme, informers.NewSharedInformerFactory)
	// foosFieldManaged: managed fields on every write (EveryWrite),
	// as KubeFieldManaged is for the kubernetes clientset.
	foosFieldManaged = ctrltest.Register(fake.NewSimpleClientset, fake.AddToScheme, informers.NewSharedInformerFactory,
		ctrltest.ManagedFields(applyconfiguration.NewTypeConverter, ctrltest.EveryWrite))
	// kubeNewClientset and foosNewClientset register the fake packages'
	// NewClientset, with the options of KubeFieldManaged and
	// foosFieldManaged; impl=ctrltest-newclientset measures them.
	kubeNewClientset = ctrltest.Register(k8sfake.NewClientset, kubescheme.AddToScheme, kubeinformers.NewSharedInformerFactory,
		ctrltest.ManagedFields(applyconfigurations.NewTypeConverter, ctrltest.EveryWrite))
	foosNewClientset = ctrltest.Register(fake.NewClientset, fake.AddToScheme, informers.NewSharedInformerFactory,
		ctrltest.ManagedFields(applyconfiguration.NewTypeConverter, ctrltest.EveryWrite))
)

// ctrltestOptions are the fixture options of an impl ("ctrltest" or
// "ctrltest-newclientset"), a backend and a mode.
func ctrltestOptions(impl string, b backend, startInformers bool) []ctrltest.Option {
	var opts []ctrltest.Option
	switch {
	case b == simple:
		opts = append(opts, ctrltest.WithClientset(foos))
	case impl == "ctrltest-newclientset":
		opts = append(opts, ctrltest.WithClientset(kubeNewClientset), ctrltest.WithClientset(foosNewClientset))
	default:
		opts = append(opts, ctrltest.WithClientset(ctrltest.KubeFieldManaged), ctrltest.WithClientset(foosFieldManaged))
	}
	if startInformers {
		opts = append(opts, ctrltest.WithInformers())
	}
	return opts
}

// wire builds the controller on a fixture, as examples/foo does. Client and
// Informers find a clientset by its interface, so foos serves every Foo
// registration above.
func wire(f *ctrltest.Fixture) ctrltest.SyncFunc[cache.ObjectName] {
	c, err := controller.New(f.Context(), f.Kube(), foos.Client(f),
		f.KubeInformers().Apps().V1().Deployments(), foos.Informers(f).Samplecontroller().V1alpha1().Foos(),
		f.Recorder(), controller.WithQueue(ctrltest.Queue[cache.ObjectName](f)))
	if err != nil {
		f.T().Fatal(err)
	}
	return c.Sync
}

// ctrltestRow is the reference case with ctrltest: build the world, seed it,
// wire the controller, sync once, compare the writes.
func ctrltestRow(t testing.TB, w *world, impl string, b backend, startInformers bool) *ctrltest.Result {
	foo := newFoo()
	opts := append(ctrltestOptions(impl, b, startInformers), ctrltest.WithObjects(foo), ctrltest.WithObjects(w.unrelated...))
	f := ctrltest.New(t, opts...)
	res := ctrltest.Sync(f, wire(f), testKey)
	if res.Err != nil {
		t.Errorf("sync: %v", res.Err)
	}
	want := []actions.Action{actions.Create(newDeployment(foo)), actions.UpdateStatus(withStatus(foo, 0))}
	res.AssertActions(want)
	return res
}

// ---------------------------------------------------------------------------
// Goroutines left.
// ---------------------------------------------------------------------------

// goroutinesLeft waits up to a second for the number of goroutines to fall
// back to baseline and returns how many more there still are.
func goroutinesLeft(baseline int) int {
	deadline := time.Now().Add(time.Second)
	for {
		n := runtime.NumGoroutine() - baseline
		if n <= 0 || time.Now().After(deadline) {
			return max(n, 0)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// ---------------------------------------------------------------------------
// Benchmarks.
// ---------------------------------------------------------------------------

// BenchmarkRow measures one row of the reference case per op: build the
// world, seed the Foo and N unrelated objects, wire the controller, sync
// once, compare the writes. Sub-benchmarks differ in one key at a time, so
// that benchstat can put them side by side, for example
//
//	go tool -modfile=../../hack/tools/go.mod benchstat -col /impl new.txt
//	go tool -modfile=../../hack/tools/go.mod benchstat -col /backend new.txt
//	go tool -modfile=../../hack/tools/go.mod benchstat -col /informers new.txt
//	go tool -modfile=../../hack/tools/go.mod benchstat -col /N new.txt
func BenchmarkRow(b *testing.B) {
	type sub struct {
		v variant
		n int
	}
	var subs []sub
	for _, v := range rowVariants {
		for _, n := range sizes {
			subs = append(subs, sub{v, n})
		}
	}
	for _, v := range newClientsetVariants {
		for _, n := range sizes {
			subs = append(subs, sub{v, n})
		}
	}
	for _, v := range broadcasterVariants {
		subs = append(subs, sub{v, 0})
	}
	for _, s := range subs {
		b.Run(fmt.Sprintf("%v/N=%d", s.v, s.n), func(b *testing.B) {
			w := worldOf(s.n)
			baseline := runtime.NumGoroutine()
			s.v.verify(b, w)
			b.ReportAllocs()
			for b.Loop() {
				s.v.run(b, w, nil)
			}
			b.StopTimer()
			b.ReportMetric(float64(goroutinesLeft(baseline)), "goroutines-left")
		})
	}
}

// BenchmarkGolden measures the golden-file comparison of the reference case
// (N=0, ctrltest default mode):
//
//   - op=render: Result.Golden(), the canonical YAML of the sync;
//   - op=render+equal: Golden() and bytes.Equal with a precomputed rendering;
//   - op=render+assertfile: Golden() and golden.AssertFile against a file
//     (what Result.AssertGolden does: read, parse as YAML, compare);
//   - op=row+diffactions and op=row+golden: a whole row (BenchmarkRow's
//     ctrltest default mode) compared by AssertActions or by the golden file.
func BenchmarkGolden(b *testing.B) {
	w := worldOf(0)
	t := tbtest.PerOp(b)
	b.Cleanup(t.Done)
	res := ctrltestRow(t, w, "ctrltest", simple, false)
	want, err := res.Golden()
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "reference.golden.yaml")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("golden file: %d bytes", len(want))

	b.Run("op=render", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := res.Golden(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=render+equal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			got, err := res.Golden()
			if err != nil || !bytes.Equal(got, want) {
				b.Fatalf("rendering differs (err %v)", err)
			}
		}
	})
	b.Run("op=render+assertfile", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			got, err := res.Golden()
			if err != nil || !golden.AssertFile(b, path, got) {
				b.Fatalf("golden file differs (err %v)", err)
			}
		}
	})
	b.Run("op=row+diffactions", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			variant{"ctrltest", simple, false}.run(b, w, nil)
		}
	})
	b.Run("op=row+golden", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t := tbtest.PerOp(b)
			f := ctrltest.New(t, ctrltest.WithClientset(foos), ctrltest.WithObjects(newFoo()))
			res := ctrltest.Sync(f, wire(f), testKey)
			got, err := res.Golden()
			if err != nil || !golden.AssertFile(t, path, got) {
				b.Fatalf("golden file differs (err %v)", err)
			}
			t.Done()
		}
	})
}

// tableRows is the number of rows of BenchmarkTable1000 and
// TestNoGoroutinesLeft.
const tableRows = 1000

// referenceTable is a fixture.Table of tableRows rows of the reference case.
//
// In informer mode its Wire gives the controller a plain work queue, shut
// down by a cleanup, instead of the fixture's queue spy: a row checks exactly
// what the queue saw during the sync (a nil WantEnqueued means nothing), and
// in informer mode the informers' event handlers enqueue the Foo while the
// sync runs (the created Deployment and the Foo's new status come back
// through the watches), so what the spy sees depends on timing and such a
// row is flaky. The default mode uses the spy.
func referenceTable(startInformers bool) ctrltest.Table[cache.ObjectName] {
	foo := newFoo()
	row := ctrltest.Row{
		Key:         testKey,
		Objects:     []k8sruntime.Object{foo},
		WantActions: []actions.Action{actions.Create(newDeployment(foo)), actions.UpdateStatus(withStatus(foo, 0))},
		WantEvents:  []records.Event{ctrltest.NewEvent(foo, corev1.EventTypeNormal, controller.SuccessSynced, controller.MessageResourceSynced)},
	}
	table := ctrltest.Table[cache.ObjectName]{Wire: wire, Options: ctrltestOptions("ctrltest", simple, startInformers)}
	if startInformers {
		table.Wire = plainQueueWire
	}
	for i := range tableRows {
		r := row
		r.Name = fmt.Sprintf("row-%04d", i)
		table.Rows = append(table.Rows, r)
	}
	return table
}

// plainQueueWire is wire with a plain work queue instead of the spy.
func plainQueueWire(f *ctrltest.Fixture) ctrltest.SyncFunc[cache.ObjectName] {
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]())
	f.T().Cleanup(q.ShutDown)
	c, err := controller.New(f.Context(), f.Kube(), foos.Client(f),
		f.KubeInformers().Apps().V1().Deployments(), foos.Informers(f).Samplecontroller().V1alpha1().Foos(),
		f.Recorder(), controller.WithQueue(q))
	if err != nil {
		f.T().Fatal(err)
	}
	return c.Sync
}

// handwrittenTable runs tableRows rows of the hand-written fixture's
// TestCreatesDeployment, each a subtest, as a table test would.
func handwrittenTable(b backend, startInformers bool) func(*testing.T) {
	w := worldOf(0)
	return func(t *testing.T) {
		for i := range tableRows {
			t.Run(fmt.Sprintf("row-%04d", i), func(t *testing.T) {
				handwrittenRow(t, w, b, startInformers, false)
			})
		}
	}
}

// runAsTest runs fn as a top-level test, with a *testing.T and subtests of
// its own, from a benchmark. It uses testing.RunTests (the exported entry
// point testing.Main uses), which honours the -test.run, -test.skip and
// -test.count flags: those are set to match everything once, then restored
// when the benchmark ends. A passing test prints nothing (unless -test.v).
func runAsTest(b *testing.B, fn func(*testing.T)) func() {
	for name, value := range map[string]string{"test.run": "", "test.skip": "", "test.count": "1"} {
		fl := flag.Lookup(name)
		if fl == nil {
			b.Fatalf("no flag -%s", name)
		}
		old := fl.Value.String()
		if err := fl.Value.Set(value); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = fl.Value.Set(old) })
	}
	tests := []testing.InternalTest{{Name: "Table1000", F: fn}}
	return func() {
		if !testing.RunTests(regexp.MatchString, tests) {
			b.Fatal("the table failed (see its output above)")
		}
	}
}

// BenchmarkTable1000 measures a table of 1,000 rows of the reference case
// per op, run as go test runs it: for ctrltest, fixture.Table.Run (each row a
// subtest; with the checks Table.Run makes by default, such as the
// idempotency check's second sync); for the hand-written fixture, 1,000
// subtests each running TestCreatesDeployment. A benchmark has no
// *testing.T, so each op runs the table through testing.RunTests (see
// runAsTest).
func BenchmarkTable1000(b *testing.B) {
	for _, v := range []variant{
		{"handwritten", simple, false},
		{"ctrltest", simple, false},
		{"handwritten", simple, true},
		{"ctrltest", simple, true},
	} {
		b.Run(v.String(), func(b *testing.B) {
			baseline := runtime.NumGoroutine()
			v.verify(b, worldOf(0))
			var run func()
			if v.impl == "ctrltest" {
				run = runAsTest(b, referenceTable(v.informers).Run)
			} else {
				run = runAsTest(b, handwrittenTable(v.backend, v.informers))
			}
			b.ReportAllocs()
			for b.Loop() {
				run()
			}
			b.StopTimer()
			b.ReportMetric(float64(goroutinesLeft(baseline)), "goroutines-left")
		})
	}
}

// ---------------------------------------------------------------------------
// Tests (go test ./internal/bench, run by CI under -race).
// ---------------------------------------------------------------------------

// TestVariantsAgree checks that every variant the benchmarks run makes
// exactly the reference case's writes, with a few unrelated objects seeded.
func TestVariantsAgree(t *testing.T) {
	w := worldOf(10)
	for _, v := range allVariants() {
		t.Run(v.String(), func(t *testing.T) { v.verify(t, w) })
	}
}

// TestNoGoroutinesLeft runs a fixture.Table of 1,000 rows of the reference
// case in each mode (see referenceTable), each row a subtest, and checks
// that once the rows' subtests (and so their cleanups) have finished, the
// goroutines are back to what they were before.
func TestNoGoroutinesLeft(t *testing.T) {
	for _, mode := range []struct {
		name      string
		informers bool
	}{{"default", false}, {"informers", true}} {
		t.Run(mode.name, func(t *testing.T) {
			baseline := goleak.IgnoreCurrent()
			start := time.Now()
			t.Run("rows", referenceTable(mode.informers).Run)
			t.Logf("%d rows through Table.Run in %v (%v a row)", tableRows, time.Since(start), time.Since(start)/tableRows)
			goleak.VerifyNone(t, baseline)
		})
	}
}
