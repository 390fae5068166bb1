package clients

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/internal/clientgo"
	"github.com/ctrltest/ctrltest/internal/resources"
)

// The clientset of a types registration (fixture.WithTypes, and custom
// resources served as unstructured): client-go's testing.Fake on a simple
// object tracker, and an informer factory of plain shared informers that
// list and watch through the fake, or, on a real server, through a
// dynamic client (holding typed objects).

// NewTypesFake makes the fake clientset of a Types registration, whose
// resources table holds.
func NewTypesFake(scheme *runtime.Scheme, decoder runtime.Decoder, table *resources.Table) *TypesFake {
	tracker := clienttesting.NewObjectTracker(scheme, decoder)
	fake := &TypesFake{tracker: tracker}
	fake.AddReactor("*", "*", clienttesting.ObjectReaction(tracker))
	fake.AddWatchReactor("*", func(a clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if wa, ok := a.(clienttesting.WatchActionImpl); ok {
			opts = wa.ListOptions
		}
		var gvk schema.GroupVersionKind // the kind of the existing objects the watch sends first
		if in, ok := table.ForGVR(a.GetResource()); ok {
			gvk = in.GVK
		}
		watcher, err := clientgo.Watch(tracker, a.GetResource(), gvk, a.GetNamespace(), opts)
		return true, watcher, err
	})
	return fake
}

// NewTypesInformers makes the informer factory of a Types registration
// whose client is client (its TypesFake, or a dynamic client of a real
// server); nil for any other client.
func NewTypesInformers(client any, table *resources.Table, scheme *runtime.Scheme, resync time.Duration) *TypesInformers {
	switch c := client.(type) {
	case *TypesFake:
		return &TypesInformers{lister: c, semantics: c, table: table, scheme: scheme, resync: resync}
	case dynamic.Interface:
		return &TypesInformers{lister: dynamicLister{dyn: c, scheme: scheme}, table: table, scheme: scheme, resync: resync}
	}
	return nil
}

// lister lists and watches a resource for a Types informer.
type lister interface {
	list(gvr schema.GroupVersionResource, gvk schema.GroupVersionKind, empty runtime.Object, opts metav1.ListOptions) (runtime.Object, error)
	watch(gvr schema.GroupVersionResource, opts metav1.ListOptions) (watch.Interface, error)
}

// list and watch through the fake.
func (c *TypesFake) list(gvr schema.GroupVersionResource, gvk schema.GroupVersionKind, empty runtime.Object, opts metav1.ListOptions) (runtime.Object, error) {
	return c.Invokes(clienttesting.NewListActionWithOptions(gvr, gvk, "", opts), empty)
}

func (c *TypesFake) watch(gvr schema.GroupVersionResource, opts metav1.ListOptions) (watch.Interface, error) {
	return c.InvokesWatch(clienttesting.NewWatchActionWithOptions(gvr, "", opts))
}

// dynamicLister lists and watches a real server, converting to typed
// objects.
type dynamicLister struct {
	dyn    dynamic.Interface
	scheme *runtime.Scheme
}

func (d dynamicLister) list(gvr schema.GroupVersionResource, _ schema.GroupVersionKind, empty runtime.Object, opts metav1.ListOptions) (runtime.Object, error) {
	ul, err := d.dyn.Resource(gvr).List(context.Background(), opts)
	if err != nil {
		return nil, err
	}
	if u, ok := empty.(runtime.Unstructured); ok { // CRD-only custom resources
		u.SetUnstructuredContent(ul.UnstructuredContent())
		return empty, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(ul.UnstructuredContent(), empty); err != nil {
		return nil, fmt.Errorf("converting the %v list: %v", gvr, err)
	}
	return empty, nil
}

func (d dynamicLister) watch(gvr schema.GroupVersionResource, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := d.dyn.Resource(gvr).Watch(context.Background(), opts)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
		u, ok := e.Object.(*unstructured.Unstructured)
		if !ok {
			return e, true
		}
		typed, err := d.scheme.New(u.GroupVersionKind())
		if _, same := typed.(runtime.Unstructured); same {
			return e, true // a CRD-only custom resource
		}
		if err == nil && runtime.DefaultUnstructuredConverter.FromUnstructured(u.UnstructuredContent(), typed) == nil {
			e.Object = typed
		}
		return e, true
	}), nil
}

// TypesFake is the fake clientset of a Types registration: client-go's
// testing.Fake on a simple object tracker, as a generated fake is.
type TypesFake struct {
	clienttesting.Fake
	tracker clienttesting.ObjectTracker
}

// Tracker returns the fake's object tracker.
func (c *TypesFake) Tracker() clienttesting.ObjectTracker { return c.tracker }

// IsWatchListSemanticsUnSupported tells reflectors that the fake's watches
// send no initial events (as the generated fakes do).
func (c *TypesFake) IsWatchListSemanticsUnSupported() bool { return true }

// TypesInformers is the informer factory of a Types registration: one
// shared informer per resource, listing and watching through the fake.
type TypesInformers struct {
	lister lister
	// semantics tells reflectors whether watches send initial events:
	// the fake's do not; a real server's do (nil).
	semantics any
	table     *resources.Table
	scheme    *runtime.Scheme
	// resync is the informers' default resync period (see
	// World.factoryResync).
	resync time.Duration

	mu        sync.Mutex
	informers map[schema.GroupVersionResource]cache.SharedIndexInformer
	started   map[schema.GroupVersionResource]bool
	wg        sync.WaitGroup
	stopped   bool
}

// typesInformer is what ForResource returns (the fixture asks it for its
// Informer, as it asks a generated factory's GenericInformer).
type typesInformer struct{ informer cache.SharedIndexInformer }

// Informer returns the shared informer.
func (i typesInformer) Informer() cache.SharedIndexInformer { return i.informer }

// ForResource returns the informer of gvr, made on first use.
func (t *TypesInformers) ForResource(gvr schema.GroupVersionResource) (typesInformer, error) {
	in, ok := t.table.ForGVR(gvr)
	if !ok {
		return typesInformer{}, fmt.Errorf("no informer for %v: the registered types are %v", gvr, t.table.GroupVersions())
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if inf, ok := t.informers[gvr]; ok {
		return typesInformer{inf}, nil
	}
	example, err := t.scheme.New(in.GVK)
	if err != nil {
		return typesInformer{}, err
	}
	listGVK := in.GVK.GroupVersion().WithKind(in.GVK.Kind + "List")
	lw := &cache.ListWatch{
		ListWithContextFunc: func(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			empty, err := t.scheme.New(listGVK)
			if err != nil {
				return nil, err
			}
			return t.lister.list(gvr, in.GVK, empty, opts)
		},
		WatchFuncWithContext: func(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return t.lister.watch(gvr, opts)
		},
	}
	// The fake's tracker sends no initial events: list, then watch, as
	// the informers of generated fakes do.
	inf := cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, t.semantics), example, t.resync, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if t.informers == nil {
		t.informers = map[schema.GroupVersionResource]cache.SharedIndexInformer{}
	}
	t.informers[gvr] = inf
	return typesInformer{inf}, nil
}

// Start runs the informers not running yet.
func (t *TypesInformers) Start(stop <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	if t.started == nil {
		t.started = map[schema.GroupVersionResource]bool{}
	}
	for gvr, inf := range t.informers {
		if t.started[gvr] {
			continue
		}
		t.started[gvr] = true
		t.wg.Add(1)
		go func() {
			defer t.wg.Done()
			inf.Run(stop)
		}()
	}
}

// Shutdown waits for the running informers to stop (their stop channel
// must be closed).
func (t *TypesInformers) Shutdown() {
	t.mu.Lock()
	t.stopped = true
	t.mu.Unlock()
	t.wg.Wait()
}

// WaitForCacheSync waits until the started informers synced.
func (t *TypesInformers) WaitForCacheSync(stop <-chan struct{}) map[reflect.Type]bool {
	t.mu.Lock()
	infs := map[reflect.Type]cache.SharedIndexInformer{}
	for gvr, inf := range t.informers {
		if t.started[gvr] {
			if in, ok := t.table.ForGVR(gvr); ok {
				infs[in.Type] = inf
			}
		}
	}
	t.mu.Unlock()
	out := map[reflect.Type]bool{}
	for typ, inf := range infs {
		out[typ] = cache.WaitForCacheSync(stop, inf.HasSynced)
	}
	return out
}
