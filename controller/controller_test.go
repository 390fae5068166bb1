package controller

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubeinformers "k8s.io/client-go/informers"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	foofake "github.com/ctrltest/ctrltest/controller/generated/clientset/versioned/fake"
	fooinformers "github.com/ctrltest/ctrltest/controller/generated/informers/externalversions"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const (
	testNamespace  = "default"
	testFooName    = "test"
	testFooUID     = types.UID("foo-uid")
	testDeployName = "test-dep"
)

var testKey = cache.ObjectName{Namespace: testNamespace, Name: testFooName}

// fixture is a Controller wired to fake clientsets and to informers that are
// never started: their indexers are filled directly.
type fixture struct {
	kubeClient    *k8sfake.Clientset
	fooClient     *foofake.Clientset
	kubeInformers kubeinformers.SharedInformerFactory
	fooInformers  fooinformers.SharedInformerFactory
	recorder      *record.FakeRecorder
	queue         workqueue.TypedRateLimitingInterface[cache.ObjectName]
	c             *Controller
}

// newFixture seeds both the fake clientsets (so that writes find their
// objects) and the informers' indexers (so that the listers see them) with
// foos and deployments. The indexers hold the very pointers passed in.
func newFixture(t *testing.T, foos []*v1alpha1.Foo, deployments []*appsv1.Deployment, opts ...Option) *fixture {
	t.Helper()
	var kubeObjects, fooObjects []runtime.Object
	for _, d := range deployments {
		kubeObjects = append(kubeObjects, d.DeepCopy())
	}
	for _, f := range foos {
		fooObjects = append(fooObjects, f.DeepCopy())
	}
	f := &fixture{
		kubeClient: k8sfake.NewSimpleClientset(kubeObjects...),
		fooClient:  foofake.NewSimpleClientset(fooObjects...),
		recorder:   record.NewFakeRecorder(100),
		queue:      workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]()),
	}
	t.Cleanup(f.queue.ShutDown)
	f.kubeInformers = kubeinformers.NewSharedInformerFactory(f.kubeClient, 0)
	f.fooInformers = fooinformers.NewSharedInformerFactory(f.fooClient, 0)
	deploymentInformer := f.kubeInformers.Apps().V1().Deployments()
	fooInformer := f.fooInformers.Samplecontroller().V1alpha1().Foos()
	for _, d := range deployments {
		if err := deploymentInformer.Informer().GetIndexer().Add(d); err != nil {
			t.Fatalf("seeding Deployment indexer: %v", err)
		}
	}
	for _, foo := range foos {
		if err := fooInformer.Informer().GetIndexer().Add(foo); err != nil {
			t.Fatalf("seeding Foo indexer: %v", err)
		}
	}
	c, err := New(t.Context(), f.kubeClient, f.fooClient, deploymentInformer, fooInformer, f.recorder,
		append([]Option{WithQueue(f.queue)}, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	f.c = c
	return f
}

func newFoo(replicas *int32, available int32) *v1alpha1.Foo {
	return &v1alpha1.Foo{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "Foo"},
		ObjectMeta: metav1.ObjectMeta{Name: testFooName, Namespace: testNamespace, UID: testFooUID},
		Spec:       v1alpha1.FooSpec{DeploymentName: testDeployName, Replicas: replicas},
		Status:     v1alpha1.FooStatus{AvailableReplicas: available},
	}
}

// newDeploymentFor returns a Deployment named testDeployName controlled by
// foo, written independently of the controller's newDeployment.
func newDeploymentFor(foo *v1alpha1.Foo, replicas *int32, available int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name:            testDeployName,
			Namespace:       testNamespace,
			ResourceVersion: "1",
			OwnerReferences: []metav1.OwnerReference{fooControllerRef(foo.Name, foo.UID)},
		},
		Spec:   appsv1.DeploymentSpec{Replicas: replicas},
		Status: appsv1.DeploymentStatus{AvailableReplicas: available},
	}
}

func fooControllerRef(name string, uid types.UID) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion:         "samplecontroller.ctrltest.dev/v1alpha1",
		Kind:               "Foo",
		Name:               name,
		UID:                uid,
		Controller:         new(true),
		BlockOwnerDeletion: new(true),
	}
}

// action is the part of a recorded client action the tests compare.
type action struct {
	Verb, Resource, Subresource, Namespace string
}

// writeActions drops the list and watch actions from actions.
func writeActions(actions []k8stesting.Action) []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range actions {
		if a.GetVerb() == "list" || a.GetVerb() == "watch" {
			continue
		}
		out = append(out, a)
	}
	return out
}

func summarize(actions []k8stesting.Action) []action {
	var out []action
	for _, a := range actions {
		out = append(out, action{
			Verb:        a.GetVerb(),
			Resource:    a.GetResource().Resource,
			Subresource: a.GetSubresource(),
			Namespace:   a.GetNamespace(),
		})
	}
	return out
}

// checkActions compares the fakes' write actions with the wanted ones and
// returns them for further inspection.
func (f *fixture) checkActions(t *testing.T, wantKube, wantFoo []action) (kube, foo []k8stesting.Action) {
	t.Helper()
	kube = writeActions(f.kubeClient.Actions())
	foo = writeActions(f.fooClient.Actions())
	if diff := cmp.Diff(wantKube, summarize(kube)); diff != "" {
		t.Errorf("Kubernetes client actions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantFoo, summarize(foo)); diff != "" {
		t.Errorf("Foo client actions (-want +got):\n%s", diff)
	}
	return kube, foo
}

// events drains the events recorded so far.
func (f *fixture) events() []string {
	var out []string
	for {
		select {
		case e := <-f.recorder.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func (f *fixture) checkEvents(t *testing.T, want ...string) {
	t.Helper()
	if diff := cmp.Diff(want, f.events()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

var syncedEvent = corev1.EventTypeNormal + " " + SuccessSynced + " " + MessageResourceSynced

func TestSyncFooGone(t *testing.T) {
	f := newFixture(t, nil, nil)
	if err := f.c.Sync(t.Context(), testKey); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	f.checkActions(t, nil, nil)
	f.checkEvents(t)
}

func TestSyncEmptyDeploymentName(t *testing.T) {
	foo := newFoo(new(int32(1)), 0)
	foo.Spec.DeploymentName = ""
	f := newFixture(t, []*v1alpha1.Foo{foo}, nil)
	if err := f.c.Sync(t.Context(), testKey); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	f.checkActions(t, nil, nil)
	f.checkEvents(t)
}

func TestSyncCreatesDeployment(t *testing.T) {
	foo := newFoo(new(int32(3)), 0)
	f := newFixture(t, []*v1alpha1.Foo{foo}, nil)
	if err := f.c.Sync(t.Context(), testKey); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	kube, _ := f.checkActions(t, []action{{Verb: "create", Resource: "deployments", Namespace: testNamespace}}, nil)
	if len(kube) != 1 {
		return
	}
	create := kube[0].(k8stesting.CreateActionImpl)
	labels := map[string]string{"app": "nginx", "controller": testFooName}
	want := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name:            testDeployName,
			Namespace:       testNamespace,
			OwnerReferences: []metav1.OwnerReference{fooControllerRef(testFooName, testFooUID)},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(int32(3)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "nginx", Image: "nginx:latest"}},
				},
			},
		},
	}
	if diff := cmp.Diff(want, create.GetObject()); diff != "" {
		t.Errorf("created Deployment (-want +got):\n%s", diff)
	}
	if got := create.GetCreateOptions().FieldManager; got != FieldManager {
		t.Errorf("create field manager = %q, want %q", got, FieldManager)
	}
	// The replicas must be a copy, not the Foo's own pointer.
	if got := create.GetObject().(*appsv1.Deployment).Spec.Replicas; got == foo.Spec.Replicas {
		t.Errorf("created Deployment shares the Foo's replicas pointer")
	}
	f.checkEvents(t, syncedEvent)
}

func TestSyncDeploymentNotControlled(t *testing.T) {
	foo := newFoo(new(int32(1)), 0)
	d := newDeploymentFor(foo, new(int32(1)), 0)
	d.OwnerReferences = nil
	f := newFixture(t, []*v1alpha1.Foo{foo}, []*appsv1.Deployment{d})

	err := f.c.Sync(t.Context(), testKey)
	wantMsg := fmt.Sprintf(MessageResourceExists, testDeployName)
	if err == nil || err.Error() != wantMsg {
		t.Fatalf("Sync error = %v, want %q", err, wantMsg)
	}
	f.checkActions(t, nil, nil)
	f.checkEvents(t, `Warning ErrResourceExists Resource "test-dep" already exists and is not managed by Foo`)
}

func TestSyncDeploymentControlledByAnotherFoo(t *testing.T) {
	foo := newFoo(new(int32(1)), 0)
	d := newDeploymentFor(foo, new(int32(1)), 0)
	d.OwnerReferences = []metav1.OwnerReference{fooControllerRef(testFooName, "another-uid")}
	f := newFixture(t, []*v1alpha1.Foo{foo}, []*appsv1.Deployment{d})

	if err := f.c.Sync(t.Context(), testKey); err == nil {
		t.Fatal("Sync succeeded, want an error")
	}
	f.checkActions(t, nil, nil)
	f.checkEvents(t, corev1.EventTypeWarning+" "+ErrResourceExists+" "+fmt.Sprintf(MessageResourceExists, testDeployName))
}

func testSyncScales(t *testing.T, deploymentReplicas *int32) {
	foo := newFoo(new(int32(3)), 0)
	d := newDeploymentFor(foo, deploymentReplicas, 0)
	listed := d.DeepCopy()
	f := newFixture(t, []*v1alpha1.Foo{foo}, []*appsv1.Deployment{d})

	if err := f.c.Sync(t.Context(), testKey); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	kube, _ := f.checkActions(t, []action{{Verb: "update", Resource: "deployments", Namespace: testNamespace}}, nil)
	if len(kube) == 1 {
		update := kube[0].(k8stesting.UpdateActionImpl)
		want := listed.DeepCopy()
		want.Spec.Replicas = new(int32(3))
		if diff := cmp.Diff(want, update.GetObject()); diff != "" {
			t.Errorf("updated Deployment (-want +got):\n%s", diff)
		}
		if got := update.GetUpdateOptions().FieldManager; got != FieldManager {
			t.Errorf("update field manager = %q, want %q", got, FieldManager)
		}
	}
	if diff := cmp.Diff(listed, d); diff != "" {
		t.Errorf("Sync mutated the lister's Deployment (-before +after):\n%s", diff)
	}
	f.checkEvents(t, syncedEvent)
}

func TestSyncScalesDeployment(t *testing.T) {
	testSyncScales(t, new(int32(1)))
}

func TestSyncScalesDeploymentWithNilReplicas(t *testing.T) {
	testSyncScales(t, nil)
}

func TestSyncNilFooReplicasLeavesDeploymentAlone(t *testing.T) {
	foo := newFoo(nil, 0)
	d := newDeploymentFor(foo, new(int32(2)), 0)
	f := newFixture(t, []*v1alpha1.Foo{foo}, []*appsv1.Deployment{d})

	if err := f.c.Sync(t.Context(), testKey); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	f.checkActions(t, nil, nil)
	f.checkEvents(t, syncedEvent)
}

func TestSyncUpdatesStatus(t *testing.T) {
	foo := newFoo(new(int32(2)), 0)
	listed := foo.DeepCopy()
	d := newDeploymentFor(foo, new(int32(2)), 2)
	f := newFixture(t, []*v1alpha1.Foo{foo}, []*appsv1.Deployment{d})

	if err := f.c.Sync(t.Context(), testKey); err != nil {
		t.Fatalf("Sync: %v", err)
	}
	_, fooActions := f.checkActions(t, nil, []action{{Verb: "update", Resource: "foos", Subresource: "status", Namespace: testNamespace}})
	if len(fooActions) == 1 {
		update := fooActions[0].(k8stesting.UpdateActionImpl)
		want := listed.DeepCopy()
		want.Status.AvailableReplicas = 2
		if diff := cmp.Diff(want, update.GetObject()); diff != "" {
			t.Errorf("status update (-want +got):\n%s", diff)
		}
		if got := update.GetUpdateOptions().FieldManager; got != FieldManager {
			t.Errorf("status update field manager = %q, want %q", got, FieldManager)
		}
	}
	if diff := cmp.Diff(listed, foo); diff != "" {
		t.Errorf("Sync mutated the lister's Foo (-before +after):\n%s", diff)
	}
	f.checkEvents(t, syncedEvent)
}

func TestSyncInSyncWritesNothing(t *testing.T) {
	foo := newFoo(new(int32(2)), 2)
	d := newDeploymentFor(foo, new(int32(2)), 2)
	f := newFixture(t, []*v1alpha1.Foo{foo}, []*appsv1.Deployment{d})

	for range 2 {
		if err := f.c.Sync(t.Context(), testKey); err != nil {
			t.Fatalf("Sync: %v", err)
		}
	}
	f.checkActions(t, nil, nil)
	f.checkEvents(t, syncedEvent, syncedEvent)
}

func TestSyncReturnsWriteErrors(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name       string
		foo        *v1alpha1.Foo
		deployment func(*v1alpha1.Foo) *appsv1.Deployment
		verb       string
		resource   string
		fooClient  bool
	}{{
		name:       "create",
		foo:        newFoo(new(int32(1)), 0),
		deployment: func(*v1alpha1.Foo) *appsv1.Deployment { return nil },
		verb:       "create",
		resource:   "deployments",
	}, {
		name:       "update",
		foo:        newFoo(new(int32(3)), 0),
		deployment: func(foo *v1alpha1.Foo) *appsv1.Deployment { return newDeploymentFor(foo, new(int32(1)), 0) },
		verb:       "update",
		resource:   "deployments",
	}, {
		name:       "status",
		foo:        newFoo(new(int32(1)), 0),
		deployment: func(foo *v1alpha1.Foo) *appsv1.Deployment { return newDeploymentFor(foo, new(int32(1)), 1) },
		verb:       "update",
		resource:   "foos",
		fooClient:  true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var deployments []*appsv1.Deployment
			if d := tt.deployment(tt.foo); d != nil {
				deployments = append(deployments, d)
			}
			f := newFixture(t, []*v1alpha1.Foo{tt.foo}, deployments)
			fail := func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, errBoom }
			if tt.fooClient {
				f.fooClient.PrependReactor(tt.verb, tt.resource, fail)
			} else {
				f.kubeClient.PrependReactor(tt.verb, tt.resource, fail)
			}
			if err := f.c.Sync(t.Context(), testKey); !errors.Is(err, errBoom) {
				t.Errorf("Sync error = %v, want %v", err, errBoom)
			}
			f.checkEvents(t)
		})
	}
}

// queued returns the keys on the queue, taking them off it.
func queued(q workqueue.TypedRateLimitingInterface[cache.ObjectName]) []cache.ObjectName {
	var out []cache.ObjectName
	for q.Len() > 0 {
		key, _ := q.Get()
		q.Done(key)
		out = append(out, key)
	}
	return out
}

func TestHandleObject(t *testing.T) {
	foo := newFoo(new(int32(1)), 0)
	controlled := newDeploymentFor(foo, new(int32(1)), 0)

	otherGroup := controlled.DeepCopy()
	otherGroup.OwnerReferences[0].APIVersion = "example.com/v1alpha1"
	otherKind := controlled.DeepCopy()
	otherKind.OwnerReferences[0].Kind = "Bar"
	notController := controlled.DeepCopy()
	notController.OwnerReferences[0].Controller = nil
	noOwner := controlled.DeepCopy()
	noOwner.OwnerReferences = nil
	missingFoo := controlled.DeepCopy()
	missingFoo.OwnerReferences[0].Name = "missing"

	tests := []struct {
		name string
		obj  any
		want []cache.ObjectName
	}{
		{"controlled by existing Foo", controlled, []cache.ObjectName{testKey}},
		{"controlled by missing Foo", missingFoo, nil},
		{"no owner", noOwner, nil},
		{"owner is not controller", notController, nil},
		{"controller of another kind", otherKind, nil},
		{"controller Foo of another group", otherGroup, nil},
		{"tombstone", cache.DeletedFinalStateUnknown{Key: "default/test-dep", Obj: controlled}, []cache.ObjectName{testKey}},
		{"tombstone of a non-object", cache.DeletedFinalStateUnknown{Key: "default/test-dep", Obj: "junk"}, nil},
		{"non-object", "junk", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, []*v1alpha1.Foo{foo}, nil)
			f.c.handleObject(tt.obj)
			if diff := cmp.Diff(tt.want, queued(f.queue)); diff != "" {
				t.Errorf("queued keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUpdateDeployment(t *testing.T) {
	foo := newFoo(new(int32(1)), 0)
	oldD := newDeploymentFor(foo, new(int32(1)), 0)

	t.Run("resync with same resourceVersion", func(t *testing.T) {
		f := newFixture(t, []*v1alpha1.Foo{foo}, nil)
		f.c.updateDeployment(oldD, oldD.DeepCopy())
		if got := queued(f.queue); len(got) != 0 {
			t.Errorf("queued keys = %v, want none", got)
		}
	})
	t.Run("real update", func(t *testing.T) {
		f := newFixture(t, []*v1alpha1.Foo{foo}, nil)
		newD := oldD.DeepCopy()
		newD.ResourceVersion = "2"
		f.c.updateDeployment(oldD, newD)
		if diff := cmp.Diff([]cache.ObjectName{testKey}, queued(f.queue)); diff != "" {
			t.Errorf("queued keys (-want +got):\n%s", diff)
		}
	})
}

func TestEnqueueFoo(t *testing.T) {
	foo := newFoo(new(int32(1)), 0)
	f := newFixture(t, nil, nil)
	f.c.enqueueFoo(foo)
	f.c.enqueueFoo("not an object")
	if diff := cmp.Diff([]cache.ObjectName{testKey}, queued(f.queue)); diff != "" {
		t.Errorf("queued keys (-want +got):\n%s", diff)
	}
}

// failingFixture returns a fixture whose Foo never syncs: the Deployment it
// names belongs to someone else.
func failingFixture(t *testing.T, opts ...Option) *fixture {
	foo := newFoo(new(int32(1)), 0)
	d := newDeploymentFor(foo, new(int32(1)), 0)
	d.OwnerReferences = nil
	return newFixture(t, []*v1alpha1.Foo{foo}, []*appsv1.Deployment{d}, opts...)
}

// processNext waits for a key to be on the queue, so that a key that is not
// coming fails the test instead of blocking it, then processes it.
func (f *fixture) processNext(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for f.queue.Len() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no key on the queue")
		}
		time.Sleep(time.Millisecond)
	}
	if !f.c.processNextWorkItem(t.Context()) {
		t.Fatal("processNextWorkItem returned false")
	}
}

func TestProcessNextWorkItemRequeuesOnError(t *testing.T) {
	f := failingFixture(t)
	f.queue.Add(testKey)
	for i := 1; i <= 2; i++ {
		f.processNext(t)
		if got := f.queue.NumRequeues(testKey); got != i {
			t.Fatalf("after failure %d: NumRequeues = %d, want %d", i, got, i)
		}
	}
}

func TestProcessNextWorkItemForgetsOnSuccess(t *testing.T) {
	f := newFixture(t, nil, nil) // the Foo is gone: Sync succeeds
	f.queue.AddRateLimited(testKey)
	if got := f.queue.NumRequeues(testKey); got != 1 {
		t.Fatalf("NumRequeues before = %d, want 1", got)
	}
	f.processNext(t)
	if got := f.queue.NumRequeues(testKey); got != 0 {
		t.Errorf("NumRequeues after success = %d, want 0", got)
	}
	// Done must have been called: a new Add is visible at once.
	f.queue.Add(testKey)
	if got := f.queue.Len(); got != 1 {
		t.Errorf("queue length after re-adding = %d, want 1", got)
	}
}

func TestProcessNextWorkItemDropsAfterMaxRetries(t *testing.T) {
	const maxRetries = 2
	f := failingFixture(t, WithMaxRetries(maxRetries))
	f.queue.Add(testKey)
	// One first attempt plus maxRetries retries.
	for range maxRetries + 1 {
		f.processNext(t)
	}
	if got := f.queue.NumRequeues(testKey); got != 0 {
		t.Errorf("NumRequeues = %d, want 0", got)
	}
	if got := f.queue.Len(); got != 0 {
		t.Errorf("queue length = %d, want 0", got)
	}
	// Nothing may be waiting to come back either.
	time.Sleep(100 * time.Millisecond)
	if got := f.queue.Len(); got != 0 {
		t.Errorf("queue length after waiting = %d, want 0", got)
	}
	if got := len(f.events()); got != maxRetries+1 {
		t.Errorf("got %d Warning events, want %d", got, maxRetries+1)
	}
}

func TestProcessNextWorkItemStopsOnShutdown(t *testing.T) {
	f := newFixture(t, nil, nil)
	f.queue.ShutDown()
	if f.c.processNextWorkItem(t.Context()) {
		t.Error("processNextWorkItem returned true on a shut down queue")
	}
}

func TestRunRejectsNoWorkers(t *testing.T) {
	f := newFixture(t, nil, nil)
	if err := f.c.Run(t.Context(), 0); err == nil {
		t.Error("Run(0 workers) succeeded, want an error")
	}
}

func TestRunCachesNotSynced(t *testing.T) {
	f := newFixture(t, nil, nil) // informers never started
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := f.c.Run(ctx, 1); err == nil {
		t.Error("Run succeeded without synced caches, want an error")
	}
	if !f.queue.ShuttingDown() {
		t.Error("queue not shut down after Run returned")
	}
}

func TestRunStopsOnCancel(t *testing.T) {
	foo := newFoo(new(int32(1)), 0)
	kubeClient := k8sfake.NewSimpleClientset()
	fooClient := foofake.NewSimpleClientset(foo)
	kubeFactory := kubeinformers.NewSharedInformerFactory(kubeClient, 0)
	fooFactory := fooinformers.NewSharedInformerFactory(fooClient, 0)
	recorder := record.NewFakeRecorder(100)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c, err := New(ctx, kubeClient, fooClient,
		kubeFactory.Apps().V1().Deployments(),
		fooFactory.Samplecontroller().V1alpha1().Foos(),
		recorder)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	kubeFactory.Start(ctx.Done())
	fooFactory.Start(ctx.Done())
	defer func() {
		// The informers stop only once ctx is done; Shutdown waits for them.
		cancel()
		kubeFactory.Shutdown()
		fooFactory.Shutdown()
	}()

	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, 2) }()

	// The Foo is synced once the workers run.
	select {
	case e := <-recorder.Events:
		if e != syncedEvent {
			t.Errorf("event = %q, want %q", e, syncedEvent)
		}
	case err := <-done:
		t.Fatalf("Run returned early: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("Foo was not synced")
	}
	if _, err := kubeClient.AppsV1().Deployments(testNamespace).Get(t.Context(), testDeployName, metav1.GetOptions{}); err != nil {
		t.Errorf("Deployment not created: %v", err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

func TestRunWaitsForWorkers(t *testing.T) {
	foo := newFoo(new(int32(1)), 0)
	kubeClient := k8sfake.NewSimpleClientset()
	fooClient := foofake.NewSimpleClientset(foo)
	kubeFactory := kubeinformers.NewSharedInformerFactory(kubeClient, 0)
	fooFactory := fooinformers.NewSharedInformerFactory(fooClient, 0)

	// The Deployment create blocks, holding a worker inside Sync.
	inSync := make(chan struct{})
	release := make(chan struct{})
	kubeClient.PrependReactor("create", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
		close(inSync)
		<-release
		return true, nil, errors.New("released")
	})

	ctx, cancel := context.WithCancel(t.Context())
	c, err := New(ctx, kubeClient, fooClient,
		kubeFactory.Apps().V1().Deployments(),
		fooFactory.Samplecontroller().V1alpha1().Foos(),
		record.NewFakeRecorder(100), WithMaxRetries(0))
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	kubeFactory.Start(ctx.Done())
	fooFactory.Start(ctx.Done())
	released := false
	defer func() {
		if !released {
			close(release)
		}
		cancel()
		kubeFactory.Shutdown()
		fooFactory.Shutdown()
	}()

	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, 1) }()
	select {
	case <-inSync:
	case <-time.After(10 * time.Second):
		t.Fatal("worker did not reach the Deployment create")
	}

	cancel()
	select {
	case err := <-done:
		t.Fatalf("Run returned (%v) while a worker was still syncing", err)
	case <-time.After(200 * time.Millisecond):
	}

	close(release)
	released = true
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the worker finished")
	}
}
