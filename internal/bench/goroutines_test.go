package bench

import (
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/controller"
	ctrltest "github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
	"github.com/ctrltest/ctrltest/tbtest"
)

// ---------------------------------------------------------------------------
// Unrelated goroutines (issue 20, item 3): a sync's cost must not grow with
// goroutines the fixture did not start. Upstream's test binaries leave
// hundreds alive; a controller with its own event broadcaster used to make
// every sync take stack dumps of all of them.
// ---------------------------------------------------------------------------

// broadcasterWire builds the reference controller as upstream's
// NewController does (sample-controller; kube-controller-manager's
// controllers likewise): its own work queue and its own event broadcaster,
// recording to the fixture's kube clientset, both shut down when the test
// ends. Its events reach the sync's Result through the broadcaster's sink.
func broadcasterWire(f *ctrltest.Fixture) ctrltest.SyncFunc[cache.ObjectName] {
	broadcaster := record.NewBroadcaster(record.WithContext(f.Context()))
	broadcaster.StartStructuredLogging(0)
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: f.Kube().CoreV1().Events("")})
	f.T().Cleanup(broadcaster.Shutdown)
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName](),
		workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: "Foos"},
	)
	f.T().Cleanup(queue.ShutDown)
	c, err := controller.New(f.Context(), f.Kube(), foos.Client(f),
		f.KubeInformers().Apps().V1().Deployments(), foos.Informers(f).Samplecontroller().V1alpha1().Foos(),
		broadcaster.NewRecorder(eventScheme(), corev1.EventSource{Component: "sample-controller"}),
		controller.WithQueue(queue))
	if err != nil {
		f.T().Fatal(err)
	}
	return c.Sync
}

// broadcasterTable is the reference case's table with broadcasterWire.
var broadcasterTable = ctrltest.Table[cache.ObjectName]{Wire: broadcasterWire, Options: []ctrltest.Option{ctrltest.WithClientset(foos)}}

// broadcasterRow is the reference case as a row; its event comes through
// the controller's broadcaster.
func broadcasterRow() ctrltest.Row {
	foo := newFoo()
	return ctrltest.Row{
		Name:        "reference",
		Key:         testKey,
		Objects:     []k8sruntime.Object{foo},
		WantActions: []actions.Action{actions.Create(newDeployment(foo)), actions.UpdateStatus(withStatus(foo, 0))},
		WantEvents:  []records.Event{wantSyncedEvent},
	}
}

// wantSyncedEvent is the event each sync of the reference case records.
// Its object has no kind, which matches any: client-go's reference to a Foo
// read from an informer (no type meta) has none.
var wantSyncedEvent = records.Event{
	Object: records.ObjectRef{Namespace: testNamespace, Name: testName},
	Type:   corev1.EventTypeNormal, Reason: controller.SuccessSynced, Message: controller.MessageResourceSynced,
}

// parkGoroutines starts n goroutines that wait until the returned func
// stops them; it returns once they have all started, and the func returns
// once they have all ended.
func parkGoroutines(n int) (stop func()) {
	var started, ended sync.WaitGroup
	release := make(chan struct{})
	started.Add(n)
	ended.Add(n)
	for range n {
		go func() {
			defer ended.Done()
			started.Done()
			<-release
		}()
	}
	started.Wait()
	return func() {
		close(release)
		ended.Wait()
	}
}

// resyncsPerFixture bounds the syncs made on one fixture in case=resync:
// the broadcaster's spam filter drops an object's events after 25 of them,
// and a dropped event is work the sink no longer does.
const resyncsPerFixture = 20

// BenchmarkGoroutines measures the reference controller with its own event
// broadcaster (broadcasterWire) with 0 and with 1,000 unrelated parked
// goroutines in the process:
//
//   - case=row: fixture.Table.RunRow with the default checks (two syncs);
//   - case=sync: fixture.New and one fixture.Sync, the fixture's cleanup
//     (and its leak check) included;
//   - case=resync: one fixture.Sync of the settled world (no write, one
//     event) on a fixture made outside the timer (a new one every
//     resyncsPerFixture syncs): the cost of a sync alone.
//
// Every op's events are checked: they come through the broadcaster. Compare
// the two columns with
//
//	go tool benchstat -col /goroutines new.txt
func BenchmarkGoroutines(b *testing.B) {
	for _, c := range []string{"row", "sync", "resync"} {
		for _, n := range []int{0, 1000} {
			b.Run(fmt.Sprintf("case=%s/goroutines=%d", c, n), func(b *testing.B) {
				stop := parkGoroutines(n)
				defer stop()
				b.ReportAllocs()
				var cpu cpuMeter
				cpu.start()
				switch c {
				case "row":
					for b.Loop() {
						t := tbtest.PerOp(b)
						broadcasterTable.RunRow(t, broadcasterRow())
						t.Done()
					}
				case "sync":
					for b.Loop() {
						broadcasterSync(b)
					}
				case "resync":
					benchResync(b, &cpu)
				}
				b.StopTimer()
				cpu.stop()
				cpu.report(b)
			})
		}
	}
}

// broadcasterSync makes a fixture of the reference case, syncs it once with
// broadcasterWire's controller, checks the writes and the event, and ends
// the fixture's test.
func broadcasterSync(tb testing.TB) {
	t := tbtest.PerOp(tb)
	defer t.Done()
	foo := newFoo()
	f := ctrltest.New(t, ctrltest.WithClientset(foos), ctrltest.WithObjects(foo))
	res := ctrltest.Sync(f, broadcasterWire(f), testKey)
	res.AssertErr(nil)
	res.AssertActions([]actions.Action{actions.Create(newDeployment(foo)), actions.UpdateStatus(withStatus(foo, 0))})
	res.AssertEvents(wantSyncedEvent)
}

// settled is the reference case's world after its sync: the Foo, its
// Deployment and the Foo's status. A sync of it writes nothing and records
// its event.
func settled() []k8sruntime.Object {
	foo := newFoo()
	return []k8sruntime.Object{withStatus(foo, 0), newDeployment(foo)}
}

// cpuMeter adds up the process's CPU time (see processCPU) over the timed
// parts of a benchmark, which the time spent with the timer stopped would
// otherwise pollute.
type cpuMeter struct {
	total, since time.Duration
	ok           bool
}

func (m *cpuMeter) start() { m.since, m.ok = processCPU() }

func (m *cpuMeter) stop() {
	if now, ok := processCPU(); ok && m.ok {
		m.total += now - m.since
	}
}

// report reports the CPU time per op as cpu-ns/op.
func (m *cpuMeter) report(b *testing.B) {
	if m.ok && b.N > 0 {
		b.ReportMetric(float64(m.total)/float64(b.N), "cpu-ns/op")
	}
}

// benchResync times fixture.Sync alone: fixtures are made and ended with
// the timer, and cpu, stopped.
func benchResync(b *testing.B, cpu *cpuMeter) {
	var (
		t    *tbtest.Op
		f    *ctrltest.Fixture
		sync ctrltest.SyncFunc[cache.ObjectName]
		left int
	)
	for b.Loop() {
		if left == 0 {
			b.StopTimer()
			cpu.stop()
			if t != nil {
				t.Done()
			}
			t = tbtest.PerOp(b)
			f = ctrltest.New(t, ctrltest.WithClientset(foos), ctrltest.WithObjects(settled()...))
			sync = broadcasterWire(f)
			left = resyncsPerFixture
			cpu.start()
			b.StartTimer()
		}
		left--
		res := ctrltest.Sync(f, sync, testKey)
		res.AssertActions(nil)
		res.AssertEvents(wantSyncedEvent)
	}
	b.StopTimer()
	if t != nil {
		t.Done()
	}
}

// TestBroadcasterCases runs BenchmarkGoroutines' cases once each, with a few
// unrelated goroutines: their writes and events are the case's.
func TestBroadcasterCases(t *testing.T) {
	defer parkGoroutines(10)()
	t.Run("row", func(t *testing.T) {
		op := tbtest.PerOp(t)
		res := broadcasterTable.RunRow(op, broadcasterRow())
		op.Done()
		if w := wantSyncedEvent; len(res.Events) != 1 || res.Events[0].Type != w.Type || res.Events[0].Reason != w.Reason || res.Events[0].Message != w.Message {
			t.Errorf("events = %v, want %v", res.Events, w)
		}
	})
	t.Run("sync", func(t *testing.T) { broadcasterSync(t) })
	t.Run("resync", func(t *testing.T) {
		f := ctrltest.New(t, ctrltest.WithClientset(foos), ctrltest.WithObjects(settled()...))
		sync := broadcasterWire(f)
		for range 3 {
			res := ctrltest.Sync(f, sync, testKey)
			res.AssertErr(nil)
			res.AssertActions(nil)
			res.AssertEvents(wantSyncedEvent)
		}
	})
}
