package feed

import (
	"bytes"
	"fmt"
	"runtime/debug"
	"sort"
	"strconv"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/internal/clientgo"
)

// Informer is one informer fed by a world.
type Informer struct {
	// Name names the informer in errors ("the apps/v1 deployments
	// informer").
	Name string
	// Resource is the resource it lists, for its callers (the feed does
	// not read it).
	Resource schema.GroupVersionResource
	// Informer is the informer; it is never started.
	Informer cache.SharedIndexInformer
	// Keep reports whether the informer lists obj (its namespace, label and
	// field selectors); nil keeps every object.
	Keep func(obj runtime.Object) bool
	// Convert makes the informer's form of an object as the world stores
	// it (unstructured, metadata only); nil delivers the object itself.
	Convert func(obj runtime.Object) (runtime.Object, error)
	// Tell, when set, is told of every event before the handlers are:
	// what the handlers get ("an update") and the key of the object. A
	// caller that wants to know which event made a handler act sets it
	// while it delivers (see internal/world's RefreshAs).
	Tell func(what, key string)

	// listed is the revision of the list the store was filled from: an
	// event at or below it is in the store already.
	listed int64
	// seen orders the handlers; a handler in seen has had the initial list.
	seen map[cache.ResourceEventHandlerRegistration]int
	// blind: the handlers cannot be reached (not client-go's informer);
	// known once listeners has looked.
	blind, looked bool
	// ls are the handlers, in order, as the last CatchUp found them: the
	// ones events go to (reading them costs a walk of client-go's
	// processor, done once per batch of events, not per event).
	ls []clientgo.Listener
	// calls counts the handler calls made.
	calls atomic.Int64
}

// Revision is the resourceVersion of a change, as a number; 0 when the
// world has none (client-go's bare fakes), and then every event is new.
type Revision = int64

// List fills the informer's store from objs, the world's objects at
// revision rv (the initial list of a reflector), and gives the list to
// every handler registered so far, in key order, as OnAdd(obj, true).
func (in *Informer) List(objs []runtime.Object, rv Revision) error {
	items := make([]any, 0, len(objs))
	for _, o := range objs {
		o, keep, err := in.form(o)
		if err != nil {
			return err
		}
		if keep {
			items = append(items, o)
		}
	}
	if err := in.Informer.GetIndexer().Replace(items, revisionText(rv)); err != nil {
		return fmt.Errorf("filling %s: %v", in.Name, err)
	}
	in.listed = rv
	return in.CatchUp()
}

// CatchUp gives the store's objects, in key order, as OnAdd(obj, true) to
// every handler registered since the last call: a shared informer replays
// its store to a handler added after it started.
func (in *Informer) CatchUp() error {
	ls, fresh := in.listeners()
	in.ls = ls
	if len(fresh) == 0 {
		return nil
	}
	for _, obj := range in.sortedObjects() {
		for _, l := range ls {
			if !fresh[l.Registration] {
				continue
			}
			if err := in.call(l, "an add (initial list)", obj, func() { l.Handler.OnAdd(obj, true) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// Deliver applies one watch event of the world at revision rv, telling the
// handlers the last CatchUp (or List) found: call CatchUp before a batch
// of events when handlers may have been registered since. obj is the
// object as the world stores it after the change (for watch.Deleted, its
// last state). An event at or below the list's revision is in the store
// already and is skipped.
func (in *Informer) Deliver(ev watch.Event, rv Revision) error {
	if rv != 0 && rv <= in.listed {
		return nil
	}
	obj, keep, err := in.form(ev.Object)
	if err != nil {
		return err
	}
	indexer := in.Informer.GetIndexer()
	old, exists, err := indexer.Get(obj)
	if err != nil {
		return fmt.Errorf("%s: %v", in.Name, err)
	}
	switch {
	case ev.Type == watch.Deleted || !keep:
		if !exists {
			return nil
		}
		if ev.Type != watch.Deleted { // it no longer matches the selectors
			obj = withRevision(old, ev.Object)
		}
		return in.remove(obj)
	case exists:
		if sameRevision(old, obj) { // no change: a watch sends no event
			return nil
		}
		if err := indexer.Update(obj); err != nil {
			return fmt.Errorf("%s: %v", in.Name, err)
		}
		return in.each("an update", obj, func(h cache.ResourceEventHandler) { h.OnUpdate(old, obj) })
	default:
		if err := indexer.Add(obj); err != nil {
			return fmt.Errorf("%s: %v", in.Name, err)
		}
		return in.each("an add", obj, func(h cache.ResourceEventHandler) { h.OnAdd(obj, false) })
	}
}

// Relist replaces the store with objs, the world's objects at revision rv,
// as a reflector's relist does with client-go's default FIFO (the atomic
// RealFIFO of v1.36 on): the store is replaced first, then the handlers
// are told of every object it no longer holds through a tombstone
// (cache.DeletedFinalStateUnknown, holding the object as the store had
// it), in key order, then of every object that is new (an add) or has
// another resourceVersion (an update from the store's copy), in key order,
// as the API server lists them.
func (in *Informer) Relist(objs []runtime.Object, rv Revision) error {
	indexer := in.Informer.GetIndexer()
	now := map[string]runtime.Object{}
	keys := make([]string, 0, len(objs))
	items := make([]any, 0, len(objs))
	for _, o := range objs {
		o, keep, err := in.form(o)
		if err != nil {
			return err
		}
		if !keep {
			continue
		}
		key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(o)
		if err != nil {
			return fmt.Errorf("%s: %v", in.Name, err)
		}
		now[key] = o
		keys = append(keys, key)
		items = append(items, o)
	}
	sort.Strings(keys)
	held := indexer.ListKeys()
	sort.Strings(held)
	before := make(map[string]any, len(held))
	var tombs []cache.DeletedFinalStateUnknown
	for _, key := range held {
		old, ok, _ := indexer.GetByKey(key)
		if !ok {
			continue
		}
		before[key] = old
		if _, ok := now[key]; !ok {
			tombs = append(tombs, cache.DeletedFinalStateUnknown{Key: key, Obj: old})
		}
	}
	synced := revisionText(rv)
	if synced == "" {
		synced = in.lastSynced()
	}
	if err := indexer.Replace(items, synced); err != nil {
		return fmt.Errorf("%s: %v", in.Name, err)
	}
	in.listed = max(in.listed, rv)
	for _, tomb := range tombs {
		if err := in.each("a tombstone (relist)", tomb, func(h cache.ResourceEventHandler) { h.OnDelete(tomb) }); err != nil {
			return err
		}
	}
	for _, key := range keys {
		obj := now[key]
		old, exists := before[key]
		switch {
		case !exists:
			if err := in.each("an add (relist)", obj, func(h cache.ResourceEventHandler) { h.OnAdd(obj, false) }); err != nil {
				return err
			}
		case sameRevision(old, obj):
			// An unchanged object is a resync: client-go tells only
			// handlers that asked for resyncs (see Resync).
		default:
			if err := in.each("an update (relist)", obj, func(h cache.ResourceEventHandler) { h.OnUpdate(old, obj) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// lastSynced is the store's last-synced resourceVersion, "" when it
// keeps none.
func (in *Informer) lastSynced() string {
	if s, ok := in.Informer.GetIndexer().(interface{ LastStoreSyncResourceVersion() string }); ok {
		return s.LastStoreSyncResourceVersion()
	}
	return ""
}

// Resync gives every object of the store, in key order, to every handler
// as an update whose old and new object are the same (the store's), as a
// shared informer's periodic resync does, telling the handlers the last
// CatchUp found. client-go sends it only to handlers registered with a
// resync period, when it is due; Resync sends it to every handler.
func (in *Informer) Resync() error {
	for _, obj := range in.sortedObjects() {
		if err := in.each("a resync", obj, func(h cache.ResourceEventHandler) { h.OnUpdate(obj, obj) }); err != nil {
			return err
		}
	}
	return nil
}

// Objects returns the objects of the informer's store in key order.
func (in *Informer) Objects() []any { return in.sortedObjects() }

// Call gives one event, what, about obj to every handler the last CatchUp
// found (fn calls one handler), without changing the store, after telling
// Tell; a handler's panic is returned (a *PanicError).
func (in *Informer) Call(what string, obj any, fn func(cache.ResourceEventHandler)) error {
	return in.each(what, obj, fn)
}

// sortedObjects returns the objects of the informer's store in key order.
func (in *Informer) sortedObjects() []any {
	store := in.Informer.GetStore()
	keys := store.ListKeys()
	sort.Strings(keys)
	objs := make([]any, 0, len(keys))
	for _, key := range keys {
		if obj, ok, _ := store.GetByKey(key); ok {
			objs = append(objs, obj)
		}
	}
	return objs
}

// Coalesce keeps, of each object's events, the last one, where it stands:
// what a handler gets when several changes of one object reach it as one
// event (the watch fell behind, and a relist shows only the latest state).
// id names the object of an event. Delivered to an informer (Deliver),
// the last event of an object the store holds is an update from the
// store's copy (the first change's old object) to the last state; of one
// it does not hold, an add of the last state; a delete of an object the
// store never held (made and deleted meanwhile) tells nothing.
func Coalesce[E any](events []E, id func(E) string) []E {
	last := make(map[string]int, len(events))
	for i, e := range events {
		last[id(e)] = i
	}
	out := make([]E, 0, len(last))
	for i, e := range events {
		if last[id(e)] == i {
			out = append(out, e)
		}
	}
	return out
}

// DeleteKey removes the object the store holds under key, if any, and
// tells the handlers as a watch's delete would.
func (in *Informer) DeleteKey(key string) error {
	obj, ok, err := in.Informer.GetIndexer().GetByKey(key)
	if err != nil || !ok {
		return err
	}
	o, isObj := obj.(runtime.Object)
	if !isObj {
		return fmt.Errorf("%s holds a %T under %q", in.Name, obj, key)
	}
	return in.remove(o)
}

func (in *Informer) remove(obj runtime.Object) error {
	if err := in.Informer.GetIndexer().Delete(obj); err != nil {
		return fmt.Errorf("%s: %v", in.Name, err)
	}
	return in.each("a delete", obj, func(h cache.ResourceEventHandler) { h.OnDelete(obj) })
}

// form returns the informer's form of obj and whether the informer lists it.
func (in *Informer) form(obj runtime.Object) (runtime.Object, bool, error) {
	if in.Convert != nil {
		var err error
		if obj, err = in.Convert(obj); err != nil {
			return nil, false, fmt.Errorf("%s: %v", in.Name, err)
		}
	}
	return obj, in.Keep == nil || in.Keep(obj), nil
}

// each calls fn with every handler the last CatchUp found, in order,
// after telling Tell.
func (in *Informer) each(what string, obj any, fn func(cache.ResourceEventHandler)) error {
	if in.Tell != nil {
		key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err != nil {
			key = describe(obj)
		}
		in.Tell(what, key)
	}
	for _, l := range in.ls {
		if err := in.call(l, what, obj, func() { fn(l.Handler) }); err != nil {
			return err
		}
	}
	return nil
}

// listeners returns the handlers in order, and marks those not seen
// before.
func (in *Informer) listeners() ([]clientgo.Listener, map[cache.ResourceEventHandlerRegistration]bool) {
	if in.blind {
		return nil, nil
	}
	ls, ok := clientgo.Listeners(in.Informer)
	in.looked = true
	if !ok {
		in.blind = true
		return nil, nil
	}
	if in.seen == nil {
		in.seen = map[cache.ResourceEventHandlerRegistration]int{}
	}
	var fresh map[cache.ResourceEventHandlerRegistration]bool
	for _, l := range ls {
		if _, ok := in.seen[l.Registration]; !ok {
			if fresh == nil {
				fresh = map[cache.ResourceEventHandlerRegistration]bool{}
			}
			fresh[l.Registration] = true
		}
	}
	return clientgo.Order(ls, in.seen), fresh
}

// Handlers is the number of handlers seen registered on the informer.
func (in *Informer) Handlers() int { return len(in.seen) }

// Calls is the number of calls of a handler the informer has made: one
// per handler and event.
func (in *Informer) Calls() int { return int(in.calls.Load()) }

// Blind reports whether the informer's handlers cannot be reached (it is
// not client-go's shared informer): its store is fed, its handlers not.
func (in *Informer) Blind() bool {
	if !in.looked {
		in.listeners()
	}
	return in.blind
}

// call runs one handler call, turning a panic into an error.
func (in *Informer) call(l clientgo.Listener, what string, obj any, fn func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Informer: in.Name, Handler: fmt.Sprintf("%T", l.Handler), Event: what, Object: describe(obj), Value: p, Stack: debug.Stack()}
		}
	}()
	in.calls.Add(1)
	fn()
	return nil
}

// PanicError is an event handler's panic.
type PanicError struct {
	// Informer, Handler, Event and Object name the informer (Informer.Name),
	// the handler's type, the event ("an update") and the object.
	Informer, Handler, Event, Object string
	// Value is what the handler panicked with; Stack, where.
	Value any
	Stack []byte
}

// Error names the informer, the handler, the event and the object, then
// the panic's value and stack.
func (e *PanicError) Error() string {
	return fmt.Sprintf("an event handler (%s) of %s panicked on %s of %s: %v\n%s", e.Handler, e.Informer, e.Event, e.Object, e.Value, e.Stack)
}

func describe(obj any) string {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return "tombstone " + t.Key
	}
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return fmt.Sprintf("%T %s", obj, key)
}

// withRevision returns a copy of old with the resourceVersion of now.
func withRevision(old any, now runtime.Object) runtime.Object {
	o, ok := old.(runtime.Object)
	if !ok {
		return now
	}
	o = o.DeepCopyObject()
	om, err1 := meta.Accessor(o)
	nm, err2 := meta.Accessor(now)
	if err1 == nil && err2 == nil {
		om.SetResourceVersion(nm.GetResourceVersion())
	}
	return o
}

// sameRevision reports whether a and b carry the same, non-empty
// resourceVersion.
func sameRevision(a any, b runtime.Object) bool {
	am, err1 := meta.Accessor(a)
	bm, err2 := meta.Accessor(b)
	return err1 == nil && err2 == nil && am.GetResourceVersion() != "" && am.GetResourceVersion() == bm.GetResourceVersion()
}

func revisionText(rv Revision) string {
	if rv == 0 {
		return ""
	}
	return strconv.FormatInt(rv, 10)
}

// PanicStack trims the frames of the recovering code from a stack taken in
// a deferred function, so that it starts where the panic was raised.
func PanicStack(stack []byte) []byte {
	lines := bytes.Split(stack, []byte("\n"))
	for i, l := range lines {
		if bytes.HasPrefix(l, []byte("panic(")) && i+2 < len(lines) {
			return bytes.Join(append([][]byte{lines[0]}, lines[i+2:]...), []byte("\n"))
		}
	}
	return stack
}
