package controller

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.uber.org/goleak"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/controller/generated/clientset/versioned/fake"
	"github.com/ctrltest/ctrltest/controller/generated/informers/externalversions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// foos registers the Foo clientset with every fixture that asks for it.
var foos = fixture.Register(fake.NewSimpleClientset, fake.AddToScheme, externalversions.NewSharedInformerFactory)

const (
	ns             = "default"
	testKey        = "default/test"
	testFooName    = "test"
	testFooUID     = types.UID("foo-uid")
	testDeployName = "test-dep"
)

// newFixture returns a world (default mode: informers never started) that
// holds objs.
func newFixture(t *testing.T, objs ...runtime.Object) *fixture.Fixture {
	return fixture.New(t, fixture.WithClientset(foos), fixture.WithObjects(objs...))
}

// newController wires a Controller to f's clients, informers, recorder and
// work-queue spy; WithQueue(nil) among opts gives it its own queue instead.
func newController(f *fixture.Fixture, opts ...Option) *Controller {
	f.T().Helper()
	c, err := New(f.Context(), f.Kube(), foos.Client(f),
		f.KubeInformers().Apps().V1().Deployments(), foos.Informers(f).Samplecontroller().V1alpha1().Foos(),
		f.Recorder(), append([]Option{WithQueue(fixture.Queue[cache.ObjectName](f))}, opts...)...)
	if err != nil {
		f.T().Fatalf("New: %v", err)
	}
	return c
}

func newFoo(replicas *int32, available int32) *v1alpha1.Foo {
	return &v1alpha1.Foo{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "Foo"},
		ObjectMeta: metav1.ObjectMeta{Name: testFooName, Namespace: ns, UID: testFooUID},
		Spec:       v1alpha1.FooSpec{DeploymentName: testDeployName, Replicas: replicas},
		Status:     v1alpha1.FooStatus{AvailableReplicas: available},
	}
}

// deployment returns the Deployment testDeployName as the API server holds
// it, with the given owners; it is written independently of the
// controller's newDeployment.
func deployment(replicas *int32, available int32, owners ...metav1.OwnerReference) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: testDeployName, Namespace: ns, ResourceVersion: "1", OwnerReferences: owners},
		Spec:       appsv1.DeploymentSpec{Replicas: replicas},
		Status:     appsv1.DeploymentStatus{AvailableReplicas: available},
	}
}

// fooRef is the controller reference of the Foo testFooName with uid.
func fooRef(uid types.UID) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "samplecontroller.ctrltest.dev/v1alpha1", Kind: "Foo",
		Name: testFooName, UID: uid, Controller: new(true), BlockOwnerDeletion: new(true)}
}

var errBoom = errors.New("boom")

// failing makes every verb request on resource fail with errBoom.
func failing(verb, resource string) []fixture.Option {
	return []fixture.Option{fixture.WithReactor(verb, resource, func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errBoom
	})}
}

const existsMsg = `Resource "test-dep" already exists and is not managed by Foo`

var (
	synced = fixture.NewEvent(newFoo(nil, 0), corev1.EventTypeNormal, SuccessSynced, MessageResourceSynced)
	exists = fixture.NewEvent(newFoo(nil, 0), corev1.EventTypeWarning, ErrResourceExists, existsMsg)
)

// errExists expects exactly the error of a Deployment the Foo does not control.
func errExists(err error) error {
	if err == nil || err.Error() != existsMsg {
		return fmt.Errorf("want error %q, got %v", existsMsg, err)
	}
	return nil
}

func TestSync(t *testing.T) {
	owned := fooRef(testFooUID)
	noName := newFoo(new(int32(1)), 0)
	noName.Spec.DeploymentName = ""
	labels := map[string]string{"app": "nginx", "controller": testFooName}
	created := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: testDeployName, Namespace: ns, OwnerReferences: []metav1.OwnerReference{owned}},
		Spec: appsv1.DeploymentSpec{
			Replicas: new(int32(3)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:latest"}}},
			},
		},
	}
	// Every write must name the controller's field manager.
	create := actions.Create(created).WithFieldManager(FieldManager)
	scale := actions.Update(deployment(new(int32(3)), 0, owned)).WithFieldManager(FieldManager)
	status := actions.UpdateStatus(newFoo(new(int32(2)), 1)).WithFieldManager(FieldManager)

	fixture.Table[cache.ObjectName]{
		Wire:    func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] { return newController(f).Sync },
		Options: []fixture.Option{fixture.WithClientset(foos)},
		Rows: []fixture.Row{{
			Name: "Foo gone", Key: testKey, Objects: []runtime.Object{fixture.Absent(newFoo(nil, 0))},
		}, {
			Name: "empty deploymentName", Key: testKey, Objects: []runtime.Object{noName},
		}, {
			Name: "creates the Deployment", Key: testKey, Objects: []runtime.Object{newFoo(new(int32(3)), 0)},
			WantActions: []actions.Action{create}, WantEvents: []records.Event{synced},
		}, {
			Name: "Deployment not controlled", Key: testKey,
			Objects: []runtime.Object{newFoo(new(int32(1)), 0), deployment(new(int32(1)), 0)},
			WantErr: errExists, WantEvents: []records.Event{exists},
		}, {
			Name: "Deployment controlled by another Foo", Key: testKey,
			Objects: []runtime.Object{newFoo(new(int32(1)), 0), deployment(new(int32(1)), 0, fooRef("another-uid"))},
			WantErr: errExists, WantEvents: []records.Event{exists},
		}, {
			Name: "scales the Deployment", Key: testKey,
			Objects:     []runtime.Object{newFoo(new(int32(3)), 0), deployment(new(int32(1)), 0, owned)},
			WantActions: []actions.Action{scale}, WantEvents: []records.Event{synced},
		}, {
			Name: "scales a Deployment with nil replicas", Key: testKey,
			Objects:     []runtime.Object{newFoo(new(int32(3)), 0), deployment(nil, 0, owned)},
			WantActions: []actions.Action{scale}, WantEvents: []records.Event{synced},
		}, {
			Name: "nil Foo replicas leave the Deployment alone", Key: testKey,
			Objects:    []runtime.Object{newFoo(nil, 0), deployment(new(int32(2)), 0, owned)},
			WantEvents: []records.Event{synced},
		}, {
			Name: "updates the status", Key: testKey,
			Objects:     []runtime.Object{newFoo(new(int32(2)), 0), deployment(new(int32(2)), 1, owned)},
			WantActions: []actions.Action{status}, WantEvents: []records.Event{synced},
		}, {
			Name: "in sync: writes nothing", Key: testKey,
			Objects:    []runtime.Object{newFoo(new(int32(2)), 2), deployment(new(int32(2)), 2, owned)},
			WantEvents: []records.Event{synced},
		}, {
			Name: "create error", Key: testKey, Objects: []runtime.Object{newFoo(new(int32(3)), 0)},
			Options:     failing("create", "deployments"),
			WantActions: []actions.Action{create}, WantErr: fixture.ErrorIs(errBoom),
		}, {
			Name: "update error", Key: testKey,
			Objects:     []runtime.Object{newFoo(new(int32(3)), 0), deployment(new(int32(1)), 0, owned)},
			Options:     failing("update", "deployments"),
			WantActions: []actions.Action{scale}, WantErr: fixture.ErrorIs(errBoom),
		}, {
			Name: "status error", Key: testKey,
			Objects:     []runtime.Object{newFoo(new(int32(2)), 0), deployment(new(int32(2)), 1, owned)},
			Options:     failing("update", "foos/status"),
			WantActions: []actions.Action{status}, WantErr: fixture.ErrorIs(errBoom),
		}},
	}.Run(t)
}

// TestSyncLeavesListersAlone: the listers' objects are the informers'
// cache, so Sync must write copies.
func TestSyncLeavesListersAlone(t *testing.T) {
	f := newFixture(t, newFoo(new(int32(3)), 0), deployment(new(int32(1)), 2, fooRef(testFooUID)))
	c := newController(f)
	f.Start()
	deployments := f.KubeInformers().Apps().V1().Deployments().Lister().Deployments(ns)
	foosLister := foos.Informers(f).Samplecontroller().V1alpha1().Foos().Lister().Foos(ns)
	d, err := deployments.Get(testDeployName)
	if err != nil {
		t.Fatal(err)
	}
	foo, err := foosLister.Get(testFooName)
	if err != nil {
		t.Fatal(err)
	}
	d, foo = d.DeepCopy(), foo.DeepCopy()
	res := fixture.Sync(f, c.Sync, testKey)
	res.AssertErr(nil)
	res.AssertActions([]actions.Action{ // both writes happened
		actions.Update(deployment(new(int32(3)), 2, fooRef(testFooUID))),
		actions.UpdateStatus(newFoo(new(int32(3)), 2)),
	})

	gotD, err := deployments.Get(testDeployName)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, gotD); diff != "" {
		t.Errorf("Sync mutated the lister's Deployment (-before +after):\n%s", diff)
	}
	gotFoo, err := foosLister.Get(testFooName)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(foo, gotFoo); diff != "" {
		t.Errorf("Sync mutated the lister's Foo (-before +after):\n%s", diff)
	}
}

// TestNewDeploymentCopiesReplicas: the Deployment must not share the
// cached Foo's replicas. (Through a fake clientset this cannot be seen: the
// fakes deep-copy what they are sent.)
func TestNewDeploymentCopiesReplicas(t *testing.T) {
	foo := newFoo(new(int32(3)), 0)
	if newDeployment(foo).Spec.Replicas == foo.Spec.Replicas {
		t.Error("newDeployment shares the Foo's replicas pointer")
	}
}

var (
	fooName = cache.ObjectName{Namespace: ns, Name: testFooName} // testKey as a queue item
	added   = records.Added(testKey)
)

// TestHandlers calls the event handlers directly, with the Foo in its
// lister, and checks what they enqueue.
func TestHandlers(t *testing.T) {
	controlled := deployment(nil, 0, fooRef(testFooUID))
	bumped := controlled.DeepCopy()
	bumped.ResourceVersion = "2"
	// owner returns a Deployment whose owner reference to the Foo is changed.
	owner := func(change func(*metav1.OwnerReference)) *appsv1.Deployment {
		r := fooRef(testFooUID)
		change(&r)
		return deployment(nil, 0, r)
	}
	handle := func(obj any) func(*Controller) { return func(c *Controller) { c.handleObject(obj) } }
	update := func(oldObj, newObj any) func(*Controller) {
		return func(c *Controller) { c.updateDeployment(oldObj, newObj) }
	}
	enqueue := func(obj any) func(*Controller) { return func(c *Controller) { c.enqueueFoo(obj) } }
	for _, tt := range []struct {
		name string
		call func(*Controller)
		want []records.QueueOp
	}{
		{"controlled by existing Foo", handle(controlled), []records.QueueOp{added}},
		{"controlled by missing Foo", handle(owner(func(r *metav1.OwnerReference) { r.Name = "missing" })), nil},
		{"no owner", handle(deployment(nil, 0)), nil},
		{"owner is not controller", handle(owner(func(r *metav1.OwnerReference) { r.Controller = nil })), nil},
		{"controller of another kind", handle(owner(func(r *metav1.OwnerReference) { r.Kind = "Bar" })), nil},
		{"controller Foo of another group", handle(owner(func(r *metav1.OwnerReference) { r.APIVersion = "example.com/v1alpha1" })), nil},
		{"tombstone", handle(cache.DeletedFinalStateUnknown{Key: "default/test-dep", Obj: controlled}), []records.QueueOp{added}},
		{"tombstone of a non-object", handle(cache.DeletedFinalStateUnknown{Key: "default/test-dep", Obj: "junk"}), nil},
		{"non-object", handle("junk"), nil},
		{"update: resync with same resourceVersion", update(controlled, controlled.DeepCopy()), nil},
		{"update: new resourceVersion", update(controlled, bumped), []records.QueueOp{added}},
		{"enqueueFoo", enqueue(newFoo(nil, 0)), []records.QueueOp{added}},
		{"enqueueFoo: non-object", enqueue("junk"), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, newFoo(new(int32(1)), 0))
			c := newController(f)
			f.Start() // seeds the Foo lister; its handler enqueues the Foo's add
			start := len(f.QueueOps())
			tt.call(c)
			if diff := cmp.Diff(tt.want, f.QueueOps()[start:], cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("enqueued (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEventHandlers drives the handlers New registers through real
// informers: each change enqueues the Foo once more. (In informer mode every
// update bumps resourceVersion; TestHandlers covers resyncs.)
func TestEventHandlers(t *testing.T) {
	f := fixture.New(t, fixture.WithClientset(foos), fixture.WithInformers(), fixture.WithObjects(newFoo(new(int32(1)), 0)))
	newController(f)
	f.Start()
	f.AwaitEnqueued(added) // the seeded Foo

	ctx, deployments := f.Context(), f.Kube().AppsV1().Deployments(ns)
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	cur, err := foos.Client(f).SamplecontrollerV1alpha1().Foos(ns).Get(ctx, testFooName, metav1.GetOptions{})
	must("reading the Foo", err)
	cur.Spec.Replicas = new(int32(2))
	_, err = foos.Client(f).SamplecontrollerV1alpha1().Foos(ns).Update(ctx, cur, metav1.UpdateOptions{})
	must("updating the Foo", err)
	f.AwaitEnqueued(added)
	d := deployment(new(int32(1)), 0, fooRef(testFooUID))
	d.ResourceVersion = "" // the server refuses a create that sets one
	d, err = deployments.Create(ctx, d, metav1.CreateOptions{})
	must("creating the Deployment", err)
	f.AwaitEnqueued(added)
	d.Spec.Replicas = new(int32(2))
	_, err = deployments.Update(ctx, d, metav1.UpdateOptions{})
	must("updating the Deployment", err)
	f.AwaitEnqueued(added)
	must("deleting the Deployment", deployments.Delete(ctx, testDeployName, metav1.DeleteOptions{}))
	f.AwaitEnqueued(added)
}

// step runs one processNextWorkItem, as a worker does, once a key is ready.
// It runs as a fixture sync, so that its result holds the events of the
// Sync it ran and what it did to the queue.
func step(f *fixture.Fixture, c *Controller) *fixture.Result {
	t := f.T()
	t.Helper()
	q := fixture.Queue[cache.ObjectName](f)
	deadline := time.Now().Add(5 * time.Second)
	for q.Len() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no key on the queue")
		}
		time.Sleep(time.Millisecond)
	}
	return fixture.Sync(f, func(ctx context.Context, _ cache.ObjectName) error {
		if !c.processNextWorkItem(ctx) {
			return errors.New("processNextWorkItem returned false")
		}
		return nil
	}, testKey)
}

func rateLimited(after time.Duration) records.QueueOp {
	return records.QueueOp{Op: records.OpAddRateLimited, Key: testKey, After: after}
}

var forgotten = records.QueueOp{Op: records.OpForget, Key: testKey}

func TestProcessNextWorkItemRetriesThenDrops(t *testing.T) {
	ms := time.Millisecond
	for _, tt := range []struct {
		name string
		opts []Option
		want []records.QueueOp // per failed attempt
	}{
		{"default max retries", nil, []records.QueueOp{rateLimited(5 * ms), rateLimited(10 * ms), rateLimited(20 * ms), rateLimited(40 * ms), rateLimited(80 * ms), forgotten}},
		{"WithMaxRetries(2)", []Option{WithMaxRetries(2)}, []records.QueueOp{rateLimited(5 * ms), rateLimited(10 * ms), forgotten}},
		{"WithMaxRetries(0)", []Option{WithMaxRetries(0)}, []records.QueueOp{forgotten}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The Foo never syncs: its Deployment belongs to someone else.
			f := newFixture(t, newFoo(new(int32(1)), 0), deployment(new(int32(1)), 0))
			c := newController(f, tt.opts...)
			fixture.Queue[cache.ObjectName](f).Add(fooName)
			for i, want := range tt.want {
				res := step(f, c)
				if !res.AssertErr(nil) || !res.AssertEvents(exists) || !res.AssertEnqueued(want) {
					t.Fatalf("attempt %d failed", i+1)
				}
			}
			if got := fixture.Queue[cache.ObjectName](f).Len(); got != 0 {
				t.Errorf("queue length = %d, want 0", got)
			}
		})
	}
}

func TestProcessNextWorkItemForgetsOnSuccess(t *testing.T) {
	f := newFixture(t) // the Foo is gone: Sync succeeds
	c := newController(f)
	q := fixture.Queue[cache.ObjectName](f)
	q.AddRateLimited(fooName)
	res := step(f, c)
	res.AssertErr(nil)
	res.AssertEnqueued(forgotten)
	if got := q.NumRequeues(fooName); got != 0 {
		t.Errorf("NumRequeues after success = %d, want 0", got)
	}
	// Done must have been called: a new Add is visible at once.
	q.Add(fooName)
	if got := q.Len(); got != 1 {
		t.Errorf("queue length after re-adding = %d, want 1", got)
	}
}

func TestProcessNextWorkItemStopsOnShutdown(t *testing.T) {
	f := newFixture(t)
	c := newController(f)
	fixture.Queue[cache.ObjectName](f).ShutDown()
	if c.processNextWorkItem(f.Context()) {
		t.Error("processNextWorkItem returned true on a shut down queue")
	}
}

func TestRunRejectsNoWorkers(t *testing.T) {
	f := newFixture(t)
	c := newController(f)
	// Cancelled, so that a Run that goes on to wait for the caches returns.
	ctx, cancel := context.WithCancel(f.Context())
	cancel()
	if err := c.Run(ctx, 0); err == nil || !strings.Contains(err.Error(), "worker") {
		t.Errorf("Run(0 workers) = %v, want an error about workers", err)
	}
}

func TestRunCachesNotSynced(t *testing.T) {
	f := newFixture(t) // informers never started
	c := newController(f)
	ctx, cancel := context.WithCancel(f.Context())
	cancel()
	if err := c.Run(ctx, 1); err == nil {
		t.Error("Run succeeded without synced caches, want an error")
	}
	if !fixture.Queue[cache.ObjectName](f).ShuttingDown() {
		t.Error("queue not shut down after Run returned")
	}
}

// startRun starts informers and Run(ctx, workers) on the controller's own
// queue (so that goleak sees a queue Run fails to shut down).
func startRun(t *testing.T, f *fixture.Fixture, workers int, opts ...Option) (cancel func(), done <-chan error) {
	c := newController(f, append([]Option{WithQueue(nil)}, opts...)...)
	f.Start()
	ctx, cancel := context.WithCancel(f.Context())
	t.Cleanup(cancel)
	ch := make(chan error, 1)
	go func() { ch <- c.Run(ctx, workers) }()
	return cancel, ch
}

// waitRun waits for Run to return, and fails if it did not succeed.
func waitRun(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
}

func TestRunStopsOnCancel(t *testing.T) {
	f := fixture.New(t, fixture.WithClientset(foos), fixture.WithInformers(), fixture.WithObjects(newFoo(new(int32(1)), 0)))
	cancel, done := startRun(t, f, 2)

	// The Foo is synced once the workers run: its Deployment appears.
	lister := f.KubeInformers().Apps().V1().Deployments().Lister().Deployments(ns)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := lister.Get(testDeployName); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("Run returned early: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("Foo was not synced")
		}
	}
	cancel()
	waitRun(t, done)
}

func TestRunWaitsForWorkers(t *testing.T) {
	// The Deployment create blocks, holding a worker inside Sync.
	inSync, release := make(chan struct{}), make(chan struct{})
	f := fixture.New(t, fixture.WithClientset(foos), fixture.WithInformers(), fixture.WithObjects(newFoo(new(int32(1)), 0)),
		fixture.WithReactor("create", "deployments", func(k8stesting.Action) (bool, runtime.Object, error) {
			close(inSync)
			<-release
			return true, nil, errors.New("released")
		}))
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	cancel, done := startRun(t, f, 1, WithMaxRetries(0))
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
	waitRun(t, done)
}
