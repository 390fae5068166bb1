package world

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/ctrltest/ctrltest/internal/clientgo"
	"github.com/ctrltest/ctrltest/internal/delivery"
)

// What the fixture asks of its world, in the order a test meets it: the
// world made, seeded and started; requests served and logged; informers
// brought up to date; objects read back; the world taken down.

// Config is what a world is made of.
type Config struct {
	Ctx     context.Context
	Clock   clock.WithTicker // nil is the real clock
	Timeout time.Duration    // bounds every wait
	// Informers selects informer mode (fixture.WithInformers): the
	// informers run on the fakes' watches instead of being fed.
	Informers bool
	// Server, when set, is a real API server to run on (parity mode);
	// Bare selects client-go's fakes without the server model.
	Server Server
	Bare   bool
	// Registrations are the clientsets, in order; CustomResources, what
	// the CRDs of custom resources declare (served as unstructured when
	// no registration serves their kind).
	Registrations   []Registration
	CustomResources []CustomResource
	Admission       Admission
	// Objects are the seeds, in order (not yet typed: see Seed).
	Objects []runtime.Object
	// Admitted, when set, are Objects as another world of the same
	// Objects and Admission admitted them (World.Admitted): the model
	// stores them without defaulting and validating the seeds again.
	Admitted []runtime.Object
	// InFlight counts the requests being served, and Served, when set, is
	// signalled, without blocking, each time the last of them has been
	// served.
	InFlight *atomic.Int64
	Served   chan<- struct{}
	// Enqueued counts the records of the work-queue spies: an event a
	// delivery tells is marked with it (Told.Mark).
	Enqueued *atomic.Int64
	// Namespaces keeps deleted namespaces Terminating until their
	// finalizers are gone (a world whose namespace controller runs: see
	// apiserver.Model.Namespaces).
	Namespaces bool
}

// New makes the world of one fixture.
func New(c Config) (*World, error) {
	if c.InFlight == nil {
		c.InFlight = new(atomic.Int64)
	}
	w := &World{
		ctx:       c.Ctx,
		clock:     c.Clock,
		timeout:   c.Timeout,
		informers: c.Informers,
		inFlight:  c.InFlight,
		servedCh:  c.Served,
		enqueued:  c.Enqueued,
	}
	w.feeds = delivery.New(deliveryHost{w})
	switch {
	case c.Server != nil:
		st, err := newServerBackend(w, c.Server)
		if err != nil {
			return nil, err
		}
		w.backend = st
	case c.Bare:
		w.backend = newFakeBackend(w)
	default:
		b := newModelBackend(w, len(c.Objects))
		b.model.Namespaces = c.Namespaces
		b.setAdmission(c.Admission)
		b.admittedBefore = c.Admitted
		w.backend = b
	}
	w.informers = w.informers || w.backend.traits().informers
	for _, p := range c.Registrations {
		if err := w.addClientset(p); err != nil {
			return nil, err
		}
	}
	if built := w.unservedCustomResources(c.CustomResources); built != nil {
		b, err := built()
		if err != nil {
			return nil, err
		}
		if err := w.addClientset(TypesParts(unstructuredType, b)); err != nil {
			return nil, err
		}
	}
	if err := w.useCustomResources(c.CustomResources); err != nil {
		return nil, err
	}
	w.objects = c.Objects
	return w, nil
}

// addClientset makes a registration's clientset.
func (w *World) addClientset(p Registration) error {
	cs, err := w.backend.newClientset(p)
	if err != nil {
		return err
	}
	w.clientsets = append(w.clientsets, cs)
	return nil
}

// Clientset returns the client and the informer factory of the clientset
// registered with interface iface.
func (w *World) Clientset(iface reflect.Type) (client any, factory Factory, ok bool) {
	for _, cs := range w.clientsets {
		if cs.iface == iface {
			return cs.client, cs.factory, true
		}
	}
	return nil, nil, false
}

// Traits say what kind of world a world is, as the fixture asks.
type Traits struct {
	// Informers: the informers run (informer mode, or a real server)
	// rather than being fed.
	Informers bool
	// FakeClients: the clients are client-go's fakes, which reactors and
	// Invoke act on.
	FakeClients bool
	// ComparesWorlds: stored worlds may be compared to name a cycle
	// (where every write is a change, they never repeat).
	ComparesWorlds bool
}

// Traits says what kind of world w is.
func (w *World) Traits() Traits {
	t := w.backend.traits()
	return Traits{Informers: w.informers, FakeClients: t.fakeClients, ComparesWorlds: t.comparesWorlds}
}

// fedResync is the default resync period of the informer factories of a
// world whose informers are fed (never started; see internal/feed): so
// long that it never comes. An informer made with resync 0 does not
// support resyncing, and client-go then warns through klog's process-wide
// logger ("the specified resyncPeriod is invalid because this shared
// informer doesn't support resyncing") for every handler a controller adds
// with a resync period, noise in every test's output. With fedResync the
// handler's period is accepted as it would be on a cluster; no timer runs,
// because the informers never run (their resyncs are the event sweep's, see
// feed.Informer.Resync).
const fedResync = time.Duration(math.MaxInt64)

// factoryResync is the default resync period of the world's informer
// factories: fedResync when the informers are fed, 0 when they run
// (informer mode, a real server), where a nonzero period would start the
// reflectors' resync timers and make syncs depend on time.
func (w *World) factoryResync() time.Duration {
	if w.informers {
		return 0
	}
	return fedResync
}

// Seeds returns the seed objects, typed (seeding them first).
func (w *World) Seeds() ([]runtime.Object, error) {
	if err := w.seedWorld(); err != nil {
		return nil, err
	}
	return append([]runtime.Object(nil), w.objects...), nil
}

// Start is the world's part of fixture.Start: the indexers filled (or the
// trackers seeded, for informers that run), once. It reports whether the
// informers must be started now (informer mode, on the first call).
func (w *World) Start() (startInformers bool, err error) {
	if err := w.seedWorld(); err != nil {
		return false, err
	}
	if !w.startedInformers.CompareAndSwap(false, true) {
		return false, nil
	}
	for _, cs := range w.clientsets {
		var err error
		if w.informers {
			err = cs.trackAll()
		} else {
			err = w.index(cs)
		}
		if err != nil {
			return false, err
		}
	}
	if err := w.indexSources(); err != nil {
		return false, err
	}
	return w.informers, nil
}

// StartInformers starts every informer factory's informers that are not
// running yet, then waits for their caches.
func (w *World) StartInformers(stop <-chan struct{}) {
	for _, cs := range w.clientsets {
		cs.factory.Start(stop)
	}
	w.sources.Start(stop)
}

// ForgetRequests empties the request log (the informers' own lists at
// their start are not the controller's).
func (w *World) ForgetRequests() {
	w.mu.Lock()
	w.log, w.held = nil, nil
	w.mu.Unlock()
}

// AwaitEveryHandler waits until every event handler registered on the
// running informers has processed its initial list; it reports false when
// some handler's registration cannot be reached.
func (w *World) AwaitEveryHandler(ctx context.Context) (reachable bool, err error) {
	reachable = true
	for _, cs := range w.clientsets {
		informers, ok := clientgo.FactoryInformers(cs.factory)
		if !ok {
			reachable = false
			continue
		}
		for typ, inf := range informers {
			r, err := delivery.AwaitHandlers(ctx, w.timeout, inf, fmt.Sprintf("the %v informer", typ))
			if err != nil {
				return false, err
			}
			reachable = reachable && r
		}
	}
	r, err := w.sources.Await(ctx, w.timeout)
	return reachable && r, err
}

// HandlerCalling reports whether the world is calling an informer's event
// handlers now (a work-queue record made then is the handler's).
func (w *World) HandlerCalling() bool { return w.feeds.HandlerCalling() }

// HasHandlers reports whether an event handler is registered on an
// informer the world feeds.
func (w *World) HasHandlers() bool { return w.feeds.HasHandlers() }

// HandlerCalls is the number of calls of an event handler the world has
// made (one per handler and event) through the informers it feeds.
func (w *World) HandlerCalls() int { return w.feeds.HandlerCalls() }

// PrependReactor adds a reactor to every clientset that serves resource
// (see fixture.Fixture.PrependReactor); it reports false when none does.
func (w *World) PrependReactor(verb, resource string, reaction clienttesting.ReactionFunc) bool {
	base, _, _ := strings.Cut(resource, "/")
	matched := false
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, cs := range w.clientsets {
		if resource != "*" && !servesResource(cs, base) {
			continue
		}
		matched = true
		cs.reactors = append([]reactor{{verb, resource, reaction}}, cs.reactors...)
	}
	return matched
}

// Observe has observe see the answer of every request.
func (w *World) Observe(observe func(a clienttesting.Action, err error)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, cs := range w.clientsets {
		cs.observers = append(cs.observers, observe)
	}
}

// Invoke is fixture.Fixture.Invoke.
func (w *World) Invoke(action clienttesting.Action) (runtime.Object, error) {
	cs, err := w.invoker(action)
	if err != nil {
		if apierrors.IsNotFound(err) {
			w.recordRefused(action)
		}
		return nil, err
	}
	typed, err := w.typedAction(cs, action)
	if err != nil {
		w.recordRefused(action)
		return nil, err
	}
	return cs.fake.(invoker).Invokes(typed, nil)
}

// InvokeWatch is fixture.Fixture.InvokeWatch.
func (w *World) InvokeWatch(action clienttesting.Action) (watch.Interface, error) {
	cs, err := w.invoker(action)
	if err != nil {
		return nil, err
	}
	return cs.fake.(invoker).InvokesWatch(action)
}

// RESTConfig is the configuration of a real server's recorded clients;
// nil on fakes.
func (w *World) RESTConfig() *rest.Config { return w.backend.restConfig() }

// Informer is fixture.Fixture.Informer.
func (w *World) Informer(gvr schema.GroupVersionResource) (cache.SharedIndexInformer, error) {
	for _, cs := range w.clientsets {
		if _, ok := cs.table.ForGVR(gvr); !ok {
			continue
		}
		inf, err := cs.informerFor(gvr)
		if err != nil {
			return nil, fmt.Errorf("adapter.Informer(%v): %v", gvr, err)
		}
		if w.started.Load() && w.backend.traits().fakeClients {
			if err := w.index(cs); err != nil {
				return nil, err
			}
		}
		return inf, nil
	}
	return nil, fmt.Errorf("adapter.Informer: no registered clientset serves %v; register its clientset (fixture.WithClientset) or its types (fixture.WithTypes)", gvr)
}

// decoderFor returns the strict decoder (an unknown field is an error)
// of the clientset whose scheme knows gvk; nil when none does.
func (w *World) decoderFor(gvk schema.GroupVersionKind) runtime.Decoder {
	for _, cs := range w.clientsets {
		if cs.scheme.Recognizes(gvk) {
			return cs.strictDecoder()
		}
	}
	return nil
}

// Kind returns the kind of an object of a registered type.
func (w *World) Kind(obj runtime.Object) (schema.GroupVersionKind, bool) {
	if in, _ := w.lookup(obj); in != nil {
		return in.GVK, true
	}
	return schema.GroupVersionKind{}, false
}

// Object returns the object the world holds now with the type, namespace
// and name of example; nil when there is none.
func (w *World) Object(example runtime.Object) (runtime.Object, error) {
	in, cs := w.lookup(example)
	if in == nil {
		return nil, fmt.Errorf("no registered clientset serves %s", Describe(example))
	}
	m, err := meta.Accessor(example)
	if err != nil {
		return nil, err
	}
	ns, name := w.backend.worldName(in, m.GetNamespace(), m.GetName())
	if err := cs.track(in.GVR, ns, !in.Namespaced); err != nil {
		return nil, err
	}
	obj, err := cs.store.Get(in.GVR, ns, name)
	if err != nil {
		return nil, nil
	}
	return w.backend.view(obj), nil
}

// Objects returns every object the world holds now of the type of
// example, sorted by namespace and name.
func (w *World) Objects(example runtime.Object) ([]runtime.Object, error) {
	in, cs := w.lookup(example)
	if in == nil {
		return nil, fmt.Errorf("no registered clientset serves %s", Describe(example))
	}
	objs, err := w.trackerObjects(in.GVR, cs)
	if err != nil {
		return nil, err
	}
	return w.sortedView(objs), nil
}

// All returns every object of every resource seeded or written, sorted by
// resource, namespace and name.
func (w *World) All() ([]runtime.Object, error) {
	var out []runtime.Object
	for _, gvr := range w.touchedSorted() {
		_, cs := w.lookupGVR(gvr)
		objs, err := w.trackerObjects(gvr, cs)
		if err != nil {
			return nil, err
		}
		out = append(out, w.sortedView(objs)...)
	}
	return out, nil
}

// WorldKey maps a work-queue key of the test to the world's (a real
// server's namespaces differ).
func (w *World) WorldKey(key string) (string, error) { return w.backend.worldKey(key) }

// ViewError returns an error of the world as the test names things.
func (w *World) ViewError(err error) error { return w.backend.viewError(err) }

// ViewText returns a text of the world as the test names things.
func (w *World) ViewText(text string) string { return w.backend.viewText(text) }

// Changes counts the writes that changed the world so far (events
// excepted); counted is false when the backend cannot tell, and every
// write then counts as a change.
func (w *World) Changes() (n int, counted bool) { return w.backend.changes() }

// Cleanup stops the informers and removes what the fixture left in the
// world.
func (w *World) Cleanup() error {
	w.probes.Stop()
	for _, cs := range w.clientsets {
		cs.factory.Shutdown()
	}
	w.sources.Shutdown()
	return w.backend.cleanup()
}
