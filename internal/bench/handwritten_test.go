package bench

// This file is the hand-written fixture the benchmarks compare ctrltest
// with. It follows kubernetes/sample-controller's controller_test.go
// (newFixture, f.objects and f.kubeobjects beside per-type lister slices,
// newController seeding the informers' indexers, runController,
// filterInformerActions, checkAction with reflect.DeepEqual, expectations
// built with core.NewCreateAction and core.NewUpdateSubresourceAction), with
// these adaptations, none of which makes it cheaper than upstream's:
//
//   - It takes a testing.TB, so that the benchmarks can give it the same
//     per-iteration test as ctrltest (see tbtest.PerOp).
//   - Our controller.New takes its recorder and queue: it gets
//     record.NewFakeRecorder(100), as this repository's controller tests and
//     upstream's tests (which overwrite c.recorder) do, and a rate-limiting
//     queue that the test shuts down. Upstream's NewController makes a queue
//     that its tests never shut down; doing that here would pile up one
//     goroutine per iteration and slow later iterations down.
//   - With broadcaster set, newController also does what upstream's
//     NewController does before its tests overwrite the recorder: build a
//     real record.NewBroadcaster, start structured logging and recording to
//     the kube clientset's events sink, and make a recorder. The benchmarks
//     label this variant impl=handwritten-broadcaster.
//   - With informers started it waits for their caches (the older upstream
//     style: start the factories, WaitForCacheSync, then sync), and shuts the
//     factories down afterwards (factory.Shutdown, which waits for the
//     informers' goroutines) so that they do not pile up across iterations;
//     ctrltest's cleanup does the same.

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/diff"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	kubeinformers "k8s.io/client-go/informers"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	core "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	"github.com/ctrltest/ctrltest/controller"
	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/controller/generated/clientset/versioned/fake"
	samplescheme "github.com/ctrltest/ctrltest/controller/generated/clientset/versioned/scheme"
	informers "github.com/ctrltest/ctrltest/controller/generated/informers/externalversions"
)

// backend is the object tracker behind the fake clientsets.
type backend string

const (
	// simple is NewSimpleClientset: client-go's simple object tracker.
	simple backend = "simple"
	// fieldManaged is NewClientset: the field-managed object tracker (server-side apply).
	fieldManaged backend = "fieldmanaged"
)

var noResyncPeriodFunc = func() time.Duration { return 0 }

// eventScheme is the scheme upstream's NewController gives its recorder:
// client-go's kubernetes types and the Foo types. Upstream adds the Foo types
// to client-go's global scheme on every NewController (a no-op after the
// first); this package keeps its own, built once, and changes nothing global.
var eventScheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(kubescheme.AddToScheme(s))
	utilruntime.Must(samplescheme.AddToScheme(s))
	return s
})

type fixture struct {
	t testing.TB

	client     *fake.Clientset
	kubeclient *k8sfake.Clientset
	// Objects to put in the store.
	fooLister        []*v1alpha1.Foo
	deploymentLister []*appsv1.Deployment
	// Actions expected to happen on the client.
	kubeactions []core.Action
	actions     []core.Action
	// Objects from here preloaded into NewSimpleFake.
	kubeobjects []runtime.Object
	objects     []runtime.Object

	// backend picks NewSimpleClientset or NewClientset.
	backend backend
	// broadcaster builds upstream's real event broadcaster (see the top of
	// this file).
	broadcaster bool
}

func newFixture(t testing.TB, b backend, broadcaster bool) *fixture {
	f := &fixture{}
	f.t = t
	f.objects = []runtime.Object{}
	f.kubeobjects = []runtime.Object{}
	f.backend = b
	f.broadcaster = broadcaster
	return f
}

func (f *fixture) newController(ctx context.Context) (*controller.Controller, informers.SharedInformerFactory, kubeinformers.SharedInformerFactory) {
	switch f.backend {
	case fieldManaged:
		f.client = fake.NewClientset(f.objects...)
		f.kubeclient = k8sfake.NewClientset(f.kubeobjects...)
	default:
		f.client = fake.NewSimpleClientset(f.objects...)
		f.kubeclient = k8sfake.NewSimpleClientset(f.kubeobjects...)
	}

	i := informers.NewSharedInformerFactory(f.client, noResyncPeriodFunc())
	k8sI := kubeinformers.NewSharedInformerFactory(f.kubeclient, noResyncPeriodFunc())

	if f.broadcaster {
		// What upstream's NewController does; its tests then replace the
		// recorder with a fake one.
		eventBroadcaster := record.NewBroadcaster(record.WithContext(ctx))
		eventBroadcaster.StartStructuredLogging(0)
		eventBroadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: f.kubeclient.CoreV1().Events("")})
		_ = eventBroadcaster.NewRecorder(eventScheme(), corev1.EventSource{Component: "sample-controller"})
		f.t.Cleanup(eventBroadcaster.Shutdown)
	}

	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName]())
	f.t.Cleanup(queue.ShutDown)

	c, err := controller.New(ctx, f.kubeclient, f.client,
		k8sI.Apps().V1().Deployments(), i.Samplecontroller().V1alpha1().Foos(),
		record.NewFakeRecorder(100), controller.WithQueue(queue))
	if err != nil {
		f.t.Fatalf("building the controller: %v", err)
	}

	for _, f := range f.fooLister {
		_ = i.Samplecontroller().V1alpha1().Foos().Informer().GetIndexer().Add(f)
	}

	for _, d := range f.deploymentLister {
		_ = k8sI.Apps().V1().Deployments().Informer().GetIndexer().Add(d)
	}

	return c, i, k8sI
}

func (f *fixture) run(ctx context.Context, fooRef cache.ObjectName, startInformers bool) {
	f.runController(ctx, fooRef, startInformers, false)
}

func (f *fixture) runController(ctx context.Context, fooRef cache.ObjectName, startInformers bool, expectError bool) {
	c, i, k8sI := f.newController(ctx)
	if startInformers {
		stopCh := make(chan struct{})
		defer func() {
			close(stopCh)
			i.Shutdown()
			k8sI.Shutdown()
		}()
		i.Start(stopCh)
		k8sI.Start(stopCh)
		i.WaitForCacheSync(stopCh)
		k8sI.WaitForCacheSync(stopCh)
	}

	err := c.Sync(ctx, fooRef)
	if !expectError && err != nil {
		f.t.Errorf("error syncing foo: %v", err)
	} else if expectError && err == nil {
		f.t.Error("expected error syncing foo, got nil")
	}

	actions := filterInformerActions(f.client.Actions())
	for i, action := range actions {
		if len(f.actions) < i+1 {
			f.t.Errorf("%d unexpected actions: %+v", len(actions)-len(f.actions), actions[i:])
			break
		}

		expectedAction := f.actions[i]
		checkAction(expectedAction, action, f.t)
	}

	if len(f.actions) > len(actions) {
		f.t.Errorf("%d additional expected actions:%+v", len(f.actions)-len(actions), f.actions[len(actions):])
	}

	k8sActions := filterInformerActions(f.kubeclient.Actions())
	for i, action := range k8sActions {
		if len(f.kubeactions) < i+1 {
			f.t.Errorf("%d unexpected actions: %+v", len(k8sActions)-len(f.kubeactions), k8sActions[i:])
			break
		}

		expectedAction := f.kubeactions[i]
		checkAction(expectedAction, action, f.t)
	}

	if len(f.kubeactions) > len(k8sActions) {
		f.t.Errorf("%d additional expected actions:%+v", len(f.kubeactions)-len(k8sActions), f.kubeactions[len(k8sActions):])
	}
}

// checkAction verifies that expected and actual actions are equal and both have
// same attached resources
func checkAction(expected, actual core.Action, t testing.TB) {
	if !(expected.Matches(actual.GetVerb(), actual.GetResource().Resource) && actual.GetSubresource() == expected.GetSubresource()) {
		t.Errorf("Expected\n\t%#v\ngot\n\t%#v", expected, actual)
		return
	}

	if reflect.TypeOf(actual) != reflect.TypeOf(expected) {
		t.Errorf("Action has wrong type. Expected: %t. Got: %t", expected, actual)
		return
	}

	switch a := actual.(type) {
	case core.CreateActionImpl:
		e, _ := expected.(core.CreateActionImpl)
		expObject := e.GetObject()
		object := a.GetObject()

		if !reflect.DeepEqual(expObject, object) {
			t.Errorf("Action %s %s has wrong object\nDiff:\n %s",
				a.GetVerb(), a.GetResource().Resource, diff.ObjectGoPrintSideBySide(expObject, object))
		}
	case core.UpdateActionImpl:
		e, _ := expected.(core.UpdateActionImpl)
		expObject := e.GetObject()
		object := a.GetObject()

		if !reflect.DeepEqual(expObject, object) {
			t.Errorf("Action %s %s has wrong object\nDiff:\n %s",
				a.GetVerb(), a.GetResource().Resource, diff.ObjectGoPrintSideBySide(expObject, object))
		}
	case core.PatchActionImpl:
		e, _ := expected.(core.PatchActionImpl)
		expPatch := e.GetPatch()
		patch := a.GetPatch()

		if !reflect.DeepEqual(expPatch, patch) {
			t.Errorf("Action %s %s has wrong patch\nDiff:\n %s",
				a.GetVerb(), a.GetResource().Resource, diff.ObjectGoPrintSideBySide(expPatch, patch))
		}
	default:
		t.Errorf("Uncaptured Action %s %s, you should explicitly add a case to capture it",
			actual.GetVerb(), actual.GetResource().Resource)
	}
}

// filterInformerActions filters list and watch actions for testing resources.
// Since list and watch don't change resource state we can filter it to lower
// nose level in our tests.
func filterInformerActions(actions []core.Action) []core.Action {
	ret := []core.Action{}
	for _, action := range actions {
		if len(action.GetNamespace()) == 0 &&
			(action.Matches("list", "foos") ||
				action.Matches("watch", "foos") ||
				action.Matches("list", "deployments") ||
				action.Matches("watch", "deployments")) {
			continue
		}
		ret = append(ret, action)
	}

	return ret
}

func (f *fixture) expectCreateDeploymentAction(d *appsv1.Deployment) {
	f.kubeactions = append(f.kubeactions, core.NewCreateAction(schema.GroupVersionResource{Resource: "deployments"}, d.Namespace, d))
}

func (f *fixture) expectUpdateFooStatusAction(foo *v1alpha1.Foo) {
	action := core.NewUpdateSubresourceAction(schema.GroupVersionResource{Resource: "foos"}, "status", foo.Namespace, foo)
	f.actions = append(f.actions, action)
}

func getRef(foo *v1alpha1.Foo, t testing.TB) cache.ObjectName {
	ref := cache.MetaObjectToName(foo)
	return ref
}
