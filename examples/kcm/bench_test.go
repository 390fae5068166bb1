package kcm

// BenchmarkKCM times, side by side in one process, five ways of running
// one scenario of a kube-controller-manager controller:
//
//   - impl=upstream: upstream's own fixture as upstream runs it, replicated
//     here (a _test.go file of k8s.io/kubernetes cannot be imported): for
//     the Deployment controller, deployment_controller_test.go's
//     newFixture, newController and run_ with startInformers true
//     (fake.NewSimpleClientset of f.objects, an informer factory, the real
//     NewDeploymentController with its eventRecorder replaced by a
//     record.FakeRecorder, the lister objects added to the indexers, the
//     informers started and never waited for, syncDeployment once,
//     filterInformerActions and a comparison of verbs, resources and
//     subresources). Two differences, neither of which makes it cheaper:
//     it takes a testing.TB of its own per iteration (tbtest.PerOp, as
//     the other variants), and it shuts down the queue and broadcaster
//     the constructor made and stops the informers at the end of the
//     iteration, where upstream leaves their goroutines behind. It does
//     not stub the listers-synced functions (syncDeployment never calls
//     them);
//   - impl=ctrltest-row: the scenario's row of TestDeployment through
//     Table.RunRow with the checks go test -short runs (idempotency and
//     convergence, cache mutation, leak check, events of the controller's
//     own broadcaster; not the sweeps: see BenchmarkChecks), with the
//     server's defaulting and validation (kube.Server());
//   - impl=ctrltest-sync: fixture.New with the row's options and objects,
//     the same wiring, one fixture.Sync and an actions.Diff of the row's
//     writes;
//   - impl=ctrltest-sync-noleaks: ctrltest-sync with the leak check off
//     (fixture.WithChecks(fixture.Checks{Leaks: fixture.Off})): its one
//     stack dump per fixture costs in proportion to every goroutine of the
//     process (docs/performance.md);
//   - impl=ctrltest-sync-model: ctrltest-sync on the core model with
//     kube-apiserver's defaulting (fixture.WithDefaulting(kube.Default),
//     which the row's expected names depend on) in place of kube.Server():
//     what kube-apiserver's own validation and strategies cost a sync.
//
// For the ReplicaSet controller, impl=upstream is replica_set_test.go's
// TestSyncReplicaSetDoesNothing: a real clientset for an empty host (the
// sync never reaches it), the informers never started, the controller's
// podControl replaced by a controller.FakePodControl, the ReplicaSet and
// its pods added to the indexers, syncReplicaSet once, and the counts of
// creates, deletes and patches checked (validateSyncReplicaSet). Upstream's
// testNewReplicaSetControllerFromClient also stubs the listers-synced
// functions, which syncReplicaSet never calls; this replica shuts down
// what the constructor started.
//
// For the Job controller, impl=upstream is job_controller_test.go's
// TestControllerSyncJob as it runs a case: a real clientset for an empty
// host (the sync never reaches it), the informers never started, the
// controller's podControl replaced by a controller.FakePodControl and its
// updateStatusHandler by a function that keeps the job, a fake clock, the
// lister objects added to the indexers, syncJob once, and the counts of
// creates and deletes, the controller references and the status's active
// count checked. It is built by NewController with its clock set (upstream
// calls the unexported newControllerWithClock) and leaves out the case's
// feature-gate overrides (they change the process's global gate); it
// shuts down what the constructor started.
//
// The scenarios: scenario=creates is TestSyncDeploymentCreatesReplicaSet
// (on the model the sync fails after its writes, with the Conflict
// kube-apiserver gives the second status write, so the row's settling
// check does not run: see doc.go); scenario=recreate is
// TestScaleDownOldReplicaSets' Recreate rollout through syncDeployment,
// which settles after 3 syncs; controller=job/scenario=start is
// TestControllerSyncJob's "job start" (TestJob's "starts a job");
// controller=replicaset/scenario=nothing is TestSyncReplicaSetDoesNothing
// (TestReplicaSet's "does nothing when its pods match"): no write.
//
// Compare them with
//
//	go test -run '^$' -bench KCM -benchtime 200x -count 6 . | go tool -modfile=../../hack/tools/go.mod benchstat -col /impl -
//
// Each variant runs beside 0 and 1,000 unrelated parked goroutines
// (goroutines=N), started before the fixture: compare them with
// -col /goroutines.
//
// (benchstat is a tool of the root module: run it from the repository's
// root). TestKCMBenchVariantsAgree checks that every variant makes the
// scenario's writes.

import (
	"context"
	"time"

	"fmt"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientset "k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/controller/job"
	clocktesting "k8s.io/utils/clock/testing"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	core "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/deployment"
	"k8s.io/kubernetes/pkg/controller/replicaset"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/examples/kcm/internal/reach"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
	"github.com/ctrltest/ctrltest/tbtest"
)

// kcmScenario is one scenario of BenchmarkKCM: a row of a controller's
// table and the writes it makes, as "verb resource[/subresource]".
type kcmScenario struct {
	controller, name string
	row              string // the row's name in the controller's table
	writes           []string
	// upstream runs the scenario on upstream's fixture (replicated) and
	// returns the writes it recorded.
	upstream func(t testing.TB, row fixture.Row) []string
	// kubeInRow: kube.Server() is the first of the row's options (onServer
	// puts it there), not of the table's.
	kubeInRow bool
}

var kcmScenarios = []kcmScenario{{
	controller: "deployment", name: "creates",
	row:      "creates the ReplicaSet of a new Deployment",
	writes:   []string{"create replicasets", "update deployments/status", "update deployments/status"},
	upstream: upstreamDeploymentRun, kubeInRow: true,
}, {
	controller: "deployment", name: "recreate",
	row:      "a Recreate rollout scales the old ReplicaSet down first",
	writes:   []string{"update replicasets", "update deployments/status"},
	upstream: upstreamDeploymentRun, kubeInRow: true,
}, {
	controller: "replicaset", name: "nothing",
	row:      "does nothing when its pods match",
	upstream: upstreamReplicaSetRun,
}, {
	controller: "job", name: "start",
	row:      "starts a job",
	writes:   []string{"create pods", "create pods", "update jobs/status"},
	upstream: upstreamJobRun,
}}

// table returns the scenario's table and row.
func (s kcmScenario) table() (fixture.Table[string], fixture.Row) {
	var tb fixture.Table[string]
	switch s.controller {
	case "deployment":
		tb = deploymentTable()
	case "replicaset":
		tb = replicaSetTable()
	case "job":
		tb = jobTable()
	default:
		panic("BenchmarkKCM: no controller " + s.controller)
	}
	tb.Checks = quick // the figures of docs/performance.md: the quick set
	for _, r := range tb.Rows {
		if r.Name == s.row {
			tb.Rows = nil
			return tb, r
		}
	}
	panic(fmt.Sprintf("BenchmarkKCM: %s has no row %q", s.controller, s.row))
}

// run runs the scenario's row of table once with impl on a testing.TB of
// its own and returns its writes. The table is built once per benchmark,
// not per op: building every row of a controller's table (hashing pod
// templates, formatting names) cost 95-140µs an op, which both sides paid
// and which made every ratio look closer to 1 than the fixtures are. Each
// variant copies the row's objects before it changes them (ctrltest seeds
// copies; upstream's run copies them as upstream's tests build theirs).
func (s kcmScenario) run(tb testing.TB, impl string, table fixture.Table[string], row fixture.Row) []string {
	t := tbtest.PerOp(tb)
	defer t.Done()
	var res *fixture.Result
	switch impl {
	case "upstream":
		return s.upstream(t, row)
	case "ctrltest-row":
		res = table.RunRow(t, row)
	case "ctrltest-sync", "ctrltest-sync-noleaks", "ctrltest-sync-model":
		tableOpts, rowOpts := table.Options, row.Options
		if impl == "ctrltest-sync-model" { // kube.Server() is the first option of the row or of the table
			defaulting := fixture.WithDefaulting(kube.Default)
			if s.kubeInRow {
				rowOpts = append([]fixture.Option{defaulting}, rowOpts[1:]...)
			} else {
				tableOpts = append([]fixture.Option{defaulting}, tableOpts[1:]...)
			}
		}
		opts := append(append(append([]fixture.Option(nil), tableOpts...), rowOpts...), fixture.WithObjects(row.Objects...))
		if impl == "ctrltest-sync-noleaks" {
			opts = append(opts, fixture.WithChecks(fixture.Checks{Leaks: fixture.Off}))
		}
		f := fixture.New(t, opts...)
		res = fixture.Sync(f, table.Wire(f), row.Key)
		if d := actions.Diff(row.WantActions, res.Actions(), table.ActionOptions...); d != "" {
			t.Errorf("sync %q: actions mismatch (-want +got):\n%s", row.Key, d)
		}
	default:
		panic("BenchmarkKCM: no impl " + impl)
	}
	var writes []string
	for _, a := range res.Actions() {
		writes = append(writes, writeString(a.Verb, a.Resource.Resource, a.Subresource))
	}
	return writes
}

func writeString(verb, resource, subresource string) string {
	if subresource != "" {
		resource += "/" + subresource
	}
	return verb + " " + resource
}

var kcmImpls = []string{"upstream", "ctrltest-row", "ctrltest-sync", "ctrltest-sync-noleaks", "ctrltest-sync-model"}

// kcmGoroutines are the numbers of unrelated goroutines BenchmarkKCM runs
// each variant beside: issue 20 wants a sync's cost not to grow with
// goroutines the fixture did not start (upstream's tests leave hundreds
// behind in the process).
var kcmGoroutines = []int{0, 1000}

func BenchmarkKCM(b *testing.B) {
	for _, s := range kcmScenarios {
		for _, n := range kcmGoroutines {
			stop := parkGoroutines(n)
			for _, impl := range kcmImpls {
				b.Run(fmt.Sprintf("controller=%s/scenario=%s/goroutines=%d/impl=%s", s.controller, s.name, n, impl), func(b *testing.B) {
					table, row := s.table()
					b.ReportAllocs()
					cpu0, cpuOK := processCPU()
					for b.Loop() {
						s.run(b, impl, table, row)
					}
					b.StopTimer()
					if cpu1, ok := processCPU(); ok && cpuOK {
						b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
					}
				})
			}
			stop()
		}
	}
}

// parkGoroutines starts n goroutines that wait until stop is called; stop
// returns once they have all exited.
func parkGoroutines(n int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { <-done })
	}
	return func() {
		close(done)
		wg.Wait()
	}
}

// TestKCMBenchVariantsAgree checks that every variant of BenchmarkKCM
// makes its scenario's writes, so that the benchmark compares the same
// work, and makes them again from the same table (as the benchmark's
// later ops do: no variant changes the row's objects).
func TestKCMBenchVariantsAgree(t *testing.T) {
	for _, s := range kcmScenarios {
		for _, impl := range kcmImpls {
			t.Run(s.controller+"/"+s.name+"/"+impl, func(t *testing.T) {
				table, row := s.table()
				for op := 1; op <= 2; op++ {
					got := s.run(t, impl, table, row)
					if strings.Join(got, ", ") != strings.Join(s.writes, ", ") {
						t.Errorf("op %d: writes %q, want %q", op, got, s.writes)
					}
				}
			})
		}
	}
}

// upstreamReplicaSetRun is replica_set_test.go's
// TestSyncReplicaSetDoesNothing for the row's objects (the ReplicaSet and
// its pods, added to the indexers). It returns the writes FakePodControl
// recorded: a "create pods" per template, a "delete pods" per name, a
// "patch pods" per patch; it fails t when there are any (the row makes
// none).
func upstreamReplicaSetRun(t testing.TB, row fixture.Row) []string {
	_, ctx := ktesting.NewTestContext(t)
	client := clientset.NewForConfigOrDie(&restclient.Config{Host: "", ContentConfig: restclient.ContentConfig{GroupVersion: &schema.GroupVersion{Group: "", Version: "v1"}}})
	fakePodControl := controller.FakePodControl{}
	inf := informers.NewSharedInformerFactory(client, controller.NoResyncPeriodFunc())
	manager := replicaset.NewReplicaSetController(ctx, inf.Apps().V1().ReplicaSets(), inf.Core().V1().Pods(), client, replicaset.BurstReplicas)
	defer (*reach.ReplicaSetBroadcaster.Of(t, manager)).Shutdown() // upstream leaves them running
	defer (*reach.ReplicaSetQueue.Of(t, manager)).ShutDown()
	for _, o := range row.Objects {
		o = o.DeepCopyObject()
		switch o := o.(type) {
		case *appsv1.ReplicaSet:
			inf.Apps().V1().ReplicaSets().Informer().GetIndexer().Add(o)
		case *corev1.Pod:
			inf.Core().V1().Pods().Informer().GetIndexer().Add(o)
		}
	}
	*reach.ReplicaSetPodControl.Of(t, manager) = &fakePodControl
	if err := (*reach.ReplicaSetSync.Of(t, manager))(ctx, row.Key); err != nil {
		t.Errorf("sync %q: %v", row.Key, err) // upstream ignores it; the row expects none
	}
	if n, m, p := len(fakePodControl.Templates), len(fakePodControl.DeletePodName), len(fakePodControl.Patches); n+m+p != 0 {
		t.Errorf("Unexpected creates, deletes, patches: %d, %d, %d; want none", n, m, p)
	}
	var writes []string
	for range fakePodControl.Templates {
		writes = append(writes, "create pods")
	}
	for range fakePodControl.DeletePodName {
		writes = append(writes, "delete pods")
	}
	for range fakePodControl.Patches {
		writes = append(writes, "patch pods")
	}
	return writes
}

// upstreamDeploymentRun is deployment_controller_test.go's
// f.run(ctx, key) for the row's objects: every object in f.objects, the
// Deployments and ReplicaSets also in f.dLister and f.rsLister. It
// returns the writes the sync made and fails t when their verbs,
// resources and subresources are not the row's (upstream's comparison).
func upstreamDeploymentRun(t testing.TB, row fixture.Row) []string {
	_, ctx := ktesting.NewTestContext(t)
	var objects []runtime.Object
	var dLister []*appsv1.Deployment
	var rsLister []*appsv1.ReplicaSet
	for _, o := range row.Objects {
		o = o.DeepCopyObject()
		objects = append(objects, o)
		switch o := o.(type) {
		case *appsv1.Deployment:
			dLister = append(dLister, o)
		case *appsv1.ReplicaSet:
			rsLister = append(rsLister, o)
		}
	}
	var expected []core.Action
	for _, a := range row.WantActions {
		gvr := a.Resource
		gvr.Group, gvr.Version = "", "" // upstream's expectations name the resource only
		switch a.Verb {
		case actions.VerbCreate:
			expected = append(expected, core.NewCreateAction(gvr, a.Namespace, a.Object))
		case actions.VerbUpdate:
			u := core.NewUpdateAction(gvr, a.Namespace, a.Object)
			u.Subresource = a.Subresource
			expected = append(expected, u)
		}
	}

	// newController
	client := fake.NewSimpleClientset(objects...)
	inf := informers.NewSharedInformerFactory(client, controller.NoResyncPeriodFunc())
	c, err := deployment.NewDeploymentController(ctx, inf.Apps().V1().Deployments(), inf.Apps().V1().ReplicaSets(), inf.Core().V1().Pods(), client)
	if err != nil {
		t.Fatalf("error creating Deployment controller: %v", err)
	}
	defer (*reach.DeploymentBroadcaster.Of(t, c)).Shutdown() // upstream leaves them running
	defer (*reach.DeploymentQueue.Of(t, c)).ShutDown()
	*reach.DeploymentRecorder.Of(t, c) = &record.FakeRecorder{}
	for _, d := range dLister {
		inf.Apps().V1().Deployments().Informer().GetIndexer().Add(d)
	}
	for _, rs := range rsLister {
		inf.Apps().V1().ReplicaSets().Informer().GetIndexer().Add(rs)
	}

	// run_ with startInformers true
	stopCh := make(chan struct{})
	defer inf.Shutdown() // upstream only closes stopCh
	defer close(stopCh)
	inf.Start(stopCh)
	syncDeployment := *reach.DeploymentSync.Of(t, c)
	err = syncDeployment(ctx, row.Key)
	if err != nil {
		t.Logf("error syncing deployment: %v", err) // upstream's run fails here; its fakes never conflict
	}
	got := filterInformerActions(client.Actions())
	for i, action := range got {
		if len(expected) < i+1 {
			t.Errorf("%d unexpected actions: %+v", len(got)-len(expected), got[i:])
			break
		}
		e := expected[i]
		if !(e.Matches(action.GetVerb(), action.GetResource().Resource) && action.GetSubresource() == e.GetSubresource()) {
			t.Errorf("Expected\n\t%#v\ngot\n\t%#v", e, action)
		}
	}
	if len(expected) > len(got) {
		t.Errorf("%d additional expected actions:%+v", len(expected)-len(got), expected[len(got):])
	}
	var writes []string
	for _, a := range got {
		if a.GetVerb() != "get" {
			writes = append(writes, writeString(a.GetVerb(), a.GetResource().Resource, a.GetSubresource()))
		}
	}
	return writes
}

// filterInformerActions is upstream's: it drops the informers' lists and
// watches.
func filterInformerActions(actions []core.Action) []core.Action {
	ret := []core.Action{}
	for _, action := range actions {
		if len(action.GetNamespace()) == 0 &&
			(action.Matches("list", "pods") ||
				action.Matches("list", "deployments") ||
				action.Matches("list", "replicasets") ||
				action.Matches("watch", "pods") ||
				action.Matches("watch", "deployments") ||
				action.Matches("watch", "replicasets")) {
			continue
		}
		ret = append(ret, action)
	}
	return ret
}

// upstreamJobRun is TestControllerSyncJob's body for the row's objects
// (the Job and its pods, added to the indexers) and returns the writes
// the fakes recorded: a "create pods" per template FakePodControl got, a
// "delete pods" per name, an "update jobs/status" when the status handler
// was called.
func upstreamJobRun(t testing.TB, row fixture.Row) []string {
	_, ctx := ktesting.NewTestContext(t)
	clientSet := clientset.NewForConfigOrDie(&restclient.Config{Host: "", ContentConfig: restclient.ContentConfig{GroupVersion: &schema.GroupVersion{Group: "", Version: "v1"}}})
	fakeClock := clocktesting.NewFakeClock(time.Now())

	// newControllerFromClientWithClock
	sharedInformerFactory := informers.NewSharedInformerFactory(clientSet, controller.NoResyncPeriodFunc())
	manager, err := job.NewController(ctx, clientSet, sharedInformerFactory.Core().V1().Pods(), sharedInformerFactory.Batch().V1().Jobs(), nil, nil)
	if err != nil {
		t.Fatalf("Error creating Job controller: %v", err)
	}
	defer (*reach.JobBroadcaster.Of(t, manager)).Shutdown() // upstream leaves them running
	defer (*reach.JobQueue.Of(t, manager)).ShutDown()
	defer reach.JobOrphanQueue.ShutDown(t, manager)
	*reach.JobClock.Of(t, manager) = fakeClock
	fakePodControl := controller.FakePodControl{}
	*reach.JobPodControl.Of(t, manager) = &fakePodControl

	var j *batchv1.Job
	for _, o := range row.Objects {
		o = o.DeepCopyObject()
		switch o := o.(type) {
		case *batchv1.Job:
			j = o
			sharedInformerFactory.Batch().V1().Jobs().Informer().GetIndexer().Add(o)
		case *corev1.Pod:
			sharedInformerFactory.Core().V1().Pods().Informer().GetIndexer().Add(o)
		}
	}
	actual := j
	updated := false
	*reach.JobUpdateStatusHandler.Of(t, manager) = func(ctx context.Context, job *batchv1.Job) (*batchv1.Job, error) {
		actual, updated = job, true
		return job, nil
	}

	// run
	if err := (*reach.JobSync.Of(t, manager))(ctx, row.Key); err != nil {
		t.Errorf("Unexpected error when syncing jobs: %v", err)
	}
	var creates int
	var writes []string
	for _, w := range row.WantActions {
		if w.Verb == actions.VerbCreate {
			creates++
		}
	}
	if len(fakePodControl.Templates) != creates {
		t.Errorf("Unexpected number of creates.  Expected %d, saw %d\n", creates, len(fakePodControl.Templates))
	}
	if len(fakePodControl.DeletePodName) != 0 {
		t.Errorf("Unexpected number of deletes.  Expected %d, saw %d\n", 0, len(fakePodControl.DeletePodName))
	}
	for _, ref := range fakePodControl.ControllerRefs {
		if ref.Kind != "Job" || ref.Name != j.Name || ref.UID != j.UID || ref.Controller == nil || !*ref.Controller {
			t.Errorf("controllerRef %+v is not the job's", ref)
		}
	}
	if actual.Status.Active != int32(creates) {
		t.Errorf("Unexpected number of active pods.  Expected %d, saw %d\n", creates, actual.Status.Active)
	}
	for range fakePodControl.Templates {
		writes = append(writes, "create pods")
	}
	for range fakePodControl.DeletePodName {
		writes = append(writes, "delete pods")
	}
	if updated {
		writes = append(writes, "update jobs/status")
	}
	return writes
}
