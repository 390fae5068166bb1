package delivery

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/internal/feed"
)

// In the default mode the informers the controller asked for are never
// started: the fixture feeds them as a cluster's reflector and processor
// would (internal/feed), on the test's goroutine, deterministically:
//
//   - when the controller has asked for an informer (at Start and before
//     each sync), its store is filled from a list of the world at the
//     model's current resourceVersion, and its event handlers get the
//     list as adds (isInInitialList);
//   - every change of the stored world is recorded, in resourceVersion
//     order, as the model makes it (apiserver.Model.Observe), and Refresh
//     delivers each to the informers of its resource as a watch event:
//     store updated, handlers called (add; update with old and new;
//     delete). An informer with a namespace or selectors sees objects
//     enter and leave its selection as adds and deletes;
//   - what the handlers put on the fixture's queue spies is theirs, not a
//     sync's (Result.Enqueued), and the idempotency and convergence checks
//     sync those keys as a controller's workers would.
//
// On the bare fakes (WithBareFakes), which record no changes, Refresh
// delivers the objects written since the last Refresh as they are now, in
// key order. On a real server (WithServer) and in informer mode
// (WithInformers) the informers run, and Refresh waits for them.

// Host is the stored world the informers are fed from.
type Host interface {
	// Informers are the informers of gvr the controller asked for (the
	// registered clientset's, then the other clients'); none when no
	// registered clientset serves gvr.
	Informers(gvr schema.GroupVersionResource) []Source
	// List returns every object of gvr the world holds now; Get, the
	// object of gvr with a cache key, nil when there is none.
	List(gvr schema.GroupVersionResource) ([]runtime.Object, error)
	Get(gvr schema.GroupVersionResource, key string) (runtime.Object, error)
	// Revision is the world's resourceVersion now (see feed.Revision).
	Revision() int64
	// Logf tells the test something it should know.
	Logf(format string, args ...any)
	// Enqueued is the number of records the work-queue spies hold now
	// (records.Told.Mark).
	Enqueued() int
}

// Source is an informer the controller asked for, with what its feed
// needs of the world.
type Source struct {
	Informer cache.SharedIndexInformer
	// What names the client whose informer it is ("" for the registered
	// clientsets; see informerName); Convert makes its form of an object
	// (nil: the typed object).
	What    string
	Convert func(runtime.Object) (runtime.Object, error)
	// Keep returns what the informer lists (nil: everything); List, the
	// objects its first list holds.
	Keep func() (func(runtime.Object) bool, error)
	List func() ([]runtime.Object, error)
}

// Written names the objects of one resource written since the last
// delivery; All means the whole resource (a delete-collection, a create
// without a name).
type Written struct {
	All  bool
	Keys map[string]bool
}

// NoteWrite adds the object of a write (verb, namespace and name; no name:
// all) to the set of gvr in sets.
func NoteWrite(sets map[schema.GroupVersionResource]*Written, gvr schema.GroupVersionResource, all bool, key string) {
	d := sets[gvr]
	if d == nil {
		d = &Written{Keys: map[string]bool{}}
		sets[gvr] = d
	}
	if all {
		d.All = true
		return
	}
	d.Keys[key] = true
}

// Merge adds the sets of from to into.
func Merge(into, from map[schema.GroupVersionResource]*Written) {
	for gvr, d := range from {
		to := into[gvr]
		if to == nil {
			into[gvr] = d
			continue
		}
		to.All = to.All || d.All
		for k := range d.Keys {
			to.Keys[k] = true
		}
	}
}

// Feeds are the feeds of the informers of one fixture and the changes of
// its world not yet delivered.
type Feeds struct {
	host Host
	// mu guards changes, fed, order and held.
	mu      sync.Mutex
	changes []change
	fed     map[cache.Indexer]*feed.Informer
	order   []*feed.Informer
	// held: deliveries are held back (Hold, lag.go).
	held bool
	// calls is positive while the fixture calls event handlers.
	calls atomic.Int32
}

// New makes the feeds of host's informers.
func New(host Host) *Feeds { return &Feeds{host: host} }

// change is one recorded change of the world.
type change struct {
	gvr schema.GroupVersionResource
	ev  watch.Event
	rv  feed.Revision
}

// Observe records a change the model made (apiserver.Model.Observe).
// The model's lock is held: it must not call the model.
func (f *Feeds) Observe(gvr schema.GroupVersionResource, ev watch.Event) {
	var rv feed.Revision
	if m, err := meta.Accessor(ev.Object); err == nil {
		rv, _ = strconv.ParseInt(m.GetResourceVersion(), 10, 64)
	}
	f.mu.Lock()
	f.changes = append(f.changes, change{gvr: gvr, ev: ev, rv: rv})
	f.mu.Unlock()
}

// takeChanges returns the changes recorded since the last call.
func (f *Feeds) takeChanges() []change {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.changes
	f.changes = nil
	return out
}

// TakeChanged returns the resources of the changes recorded since the
// last call, and forgets the changes (informer mode: the running
// informers watch them).
func (f *Feeds) TakeChanged() []schema.GroupVersionResource {
	var out []schema.GroupVersionResource
	for _, c := range f.takeChanges() {
		out = append(out, c.gvr)
	}
	return out
}

// SortedResources returns the keys of m in a fixed order.
func SortedResources[V any](m map[schema.GroupVersionResource]V) []schema.GroupVersionResource {
	out := make([]schema.GroupVersionResource, 0, len(m))
	for gvr := range m {
		out = append(out, gvr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// Fed reports whether the informer of indexer has a feed.
func (f *Feeds) Fed(indexer cache.Indexer) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.fed[indexer]
	return ok
}

// Feed returns the feed of src's informer of gvr, made and filled from
// src.List (the list) when it is new.
func (f *Feeds) Feed(gvr schema.GroupVersionResource, src Source) (*feed.Informer, error) {
	informer := src.Informer
	key := informer.GetIndexer()
	f.mu.Lock()
	fi, ok := f.fed[key]
	f.mu.Unlock()
	if ok {
		return fi, nil
	}
	var keep func(runtime.Object) bool
	if src.Keep != nil {
		var err error
		if keep, err = src.Keep(); err != nil {
			return nil, err
		}
	}
	name := informerName(src.What, gvr)
	fi = &feed.Informer{Name: name, Resource: gvr, Informer: informer, Convert: src.Convert, Keep: keep}
	rv := f.host.Revision()
	list, err := src.List()
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	if f.fed == nil {
		f.fed = map[cache.Indexer]*feed.Informer{}
	}
	f.fed[key] = fi
	f.order = append(f.order, fi)
	f.mu.Unlock()
	if err := f.delivering(func() error { return fi.List(list, rv) }); err != nil {
		return nil, fmt.Errorf("fixture: %v", err)
	}
	if fi.Blind() {
		f.host.Logf("fixture: %s is a %T, not client-go's shared informer: its store is fed, but the fixture cannot reach its event handlers to call them; with fixture.WithInformers() it runs for real", name, informer)
	}
	return fi, nil
}

// informerName names the informer of gvr in messages.
func informerName(what string, gvr schema.GroupVersionResource) string {
	gv := gvr.GroupVersion().String()
	if what != "" {
		return fmt.Sprintf("the %s %s %s informer", what, gv, gvr.Resource)
	}
	return fmt.Sprintf("the %s %s informer", gv, gvr.Resource)
}

// delivering runs fn, which calls event handlers: what they put on a
// queue spy meanwhile is theirs.
func (f *Feeds) delivering(fn func() error) error {
	f.calls.Add(1)
	defer f.calls.Add(-1)
	return fn()
}

// feedsOf returns the feeds of every informer of gvr the controller asked
// for (typed, dynamic, metadata), made and filled first if new.
func (f *Feeds) feedsOf(gvr schema.GroupVersionResource) ([]*feed.Informer, error) {
	var out []*feed.Informer
	for _, src := range f.host.Informers(gvr) {
		fi, err := f.Feed(gvr, src)
		if err != nil {
			return nil, err
		}
		out = append(out, fi)
	}
	return out, nil
}

// all returns every feed, in the order they were made.
func (f *Feeds) all() []*feed.Informer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*feed.Informer(nil), f.order...)
}

// Deliver brings the fed informers up to date with the world: the recorded
// changes in order, then the objects written since the last call that no
// recorded change covers (the bare fakes', a reactor's), read as they are
// now. While deliveries are held (Hold), it delivers nothing and reports
// held: written waits for a later call.
func (f *Feeds) Deliver(written map[schema.GroupVersionResource]*Written) (held bool, err error) {
	if err := f.CatchUp(); err != nil {
		return false, err
	}
	if f.holding() { // the informers lag: everything waits for Release (Hold, lag.go)
		return true, nil
	}
	changes := f.takeChanges()
	feeds := map[schema.GroupVersionResource][]*feed.Informer{}
	of := func(gvr schema.GroupVersionResource) ([]*feed.Informer, error) {
		fs, ok := feeds[gvr]
		if !ok {
			var err error
			if fs, err = f.feedsOf(gvr); err != nil {
				return nil, err
			}
			feeds[gvr] = fs
		}
		return fs, nil
	}
	for _, c := range changes {
		fs, err := of(c.gvr)
		if err != nil {
			return false, err
		}
		for _, fi := range fs {
			if err := f.delivering(func() error { return fi.Deliver(c.ev, c.rv) }); err != nil {
				return false, fmt.Errorf("fixture: delivering a watch event: %v", err)
			}
		}
	}
	for _, gvr := range SortedResources(written) {
		fs, err := of(gvr)
		if err != nil {
			return false, err
		}
		if len(fs) == 0 {
			continue
		}
		if err := f.deliverWritten(gvr, written[gvr], fs); err != nil {
			return false, err
		}
	}
	return false, nil
}

// deliverWritten brings fs up to date with the objects of gvr in d as the
// world holds them now. An object whose cached resourceVersion is the
// stored one is up to date already.
func (f *Feeds) deliverWritten(gvr schema.GroupVersionResource, d *Written, fs []*feed.Informer) error {
	if d.All {
		objs, err := f.host.List(gvr)
		if err != nil {
			return fmt.Errorf("fixture: refreshing %v: %v", gvr, err)
		}
		rv := f.host.Revision()
		for _, fi := range fs {
			if err := f.delivering(func() error { return fi.Relist(objs, rv) }); err != nil {
				return fmt.Errorf("fixture: refreshing %v: %v", gvr, err)
			}
		}
		return nil
	}
	keys := make([]string, 0, len(d.Keys))
	for key := range d.Keys {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		obj, err := f.host.Get(gvr, key)
		if err != nil {
			return fmt.Errorf("fixture: refreshing %v %s: %v", gvr, key, err)
		}
		for _, fi := range fs {
			deliver := func() error { return fi.Deliver(watch.Event{Type: watch.Modified, Object: obj}, 0) }
			if obj == nil { // deleted
				deliver = func() error { return fi.DeleteKey(key) }
			}
			if err := f.delivering(deliver); err != nil {
				return fmt.Errorf("fixture: refreshing %v %s: %v", gvr, key, err)
			}
		}
	}
	return nil
}

// CatchUp gives every fed informer's store to the handlers registered on
// it since the last call, as a started informer does.
func (f *Feeds) CatchUp() error {
	for _, fi := range f.all() {
		if err := f.delivering(fi.CatchUp); err != nil {
			return fmt.Errorf("fixture: %v", err)
		}
	}
	return nil
}

// HandlerCalling reports whether the world is calling an informer's event
// handlers now (a work-queue record made then is the handler's).
func (f *Feeds) HandlerCalling() bool { return f.calls.Load() > 0 }

// HasHandlers reports whether an event handler is registered on an
// informer the world feeds.
func (f *Feeds) HasHandlers() bool {
	for _, fi := range f.all() {
		if fi.Handlers() > 0 {
			return true
		}
	}
	return false
}

// HandlerCalls is the number of calls of an event handler the world has
// made (one per handler and event) through the informers it feeds.
func (f *Feeds) HandlerCalls() int {
	n := 0
	for _, fi := range f.all() {
		n += fi.Calls()
	}
	return n
}

// ObjectKey is a cache key: "namespace/name", or "name".
func ObjectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// SplitKey splits a cache key into namespace and name.
func SplitKey(key string) (namespace, name string) {
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		return "", key
	}
	return ns, name
}
