package delivery

import (
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/internal/feed"
	"github.com/ctrltest/ctrltest/internal/records"
)

// fixture's event-order check delivers the changes a sync made in each
// way client-go can deliver them, on fresh worlds, and compares the keys
// the controller's event handlers enqueue. DeliverAs is Deliver with the
// way chosen and every event told; Resync is an informer's periodic
// resync; Probe gives the handlers every cached object as each event. Each
// returns the events it told (records.Told, marked with the work-queue
// spies' count as each event's handlers began).

// An Order is a way client-go delivers a window of changes to an
// informer's event handlers.
type Order int

const (
	// InOrder: every change as a watch event, in resourceVersion order
	// (what Refresh does).
	InOrder Order = iota
	// Coalesced: of each object's changes, only the last, where it
	// stands: an update from the cached copy to the last state, an add of
	// an object the cache did not hold, a delete with the last state (see
	// feed.Coalesce).
	Coalesced
	// Relisted: the informers of each changed resource relist, in the
	// order of the resources' first change (see feed.Informer.Relist):
	// tombstones for the objects gone, adds and updates for the others.
	Relisted
)

// DeliverAs is Deliver with the changes recorded since the last delivery
// delivered as order says; it returns the events told, each before its
// handlers ran. Objects written that no recorded change covers (a
// reactor's) are delivered afterwards as Deliver delivers them, after a
// zero Told. A handler's panic is returned (a *feed.PanicError); so is an
// error of the world's, marked (see WorldError). The caller catches up
// (CatchUp) first.
func (f *Feeds) DeliverAs(order Order, written map[schema.GroupVersionResource]*Written) ([]records.Told, error) {
	var told []records.Told
	tell := f.teller(&told)
	err := f.deliverAs(order, written, tell)
	return told, err
}

// deliverAs is DeliverAs, telling tell.
func (f *Feeds) deliverAs(order Order, written map[schema.GroupVersionResource]*Written, tell func(records.Told)) error {
	changes := f.takeChanges()
	defer f.untell()
	switch order {
	case Relisted:
		var gvrs []change // the first change of each resource, in order
		seen := map[string]bool{}
		for _, c := range changes {
			if id := c.gvr.String(); !seen[id] {
				seen[id] = true
				gvrs = append(gvrs, c)
			}
		}
		for _, c := range gvrs {
			fs, err := f.feedsOf(c.gvr)
			if err != nil {
				return &WorldError{err}
			}
			fs = f.telling(fs, tell)
			if len(fs) == 0 {
				continue
			}
			objs, err := f.host.List(c.gvr)
			if err != nil {
				return err
			}
			rv := f.host.Revision()
			for _, fi := range fs {
				if err := f.delivering(func() error { return fi.Relist(objs, rv) }); err != nil {
					return err
				}
			}
		}
	default:
		if order == Coalesced {
			changes = feed.Coalesce(changes, changeID)
		}
		for _, c := range changes {
			fs, err := f.feedsOf(c.gvr)
			if err != nil {
				return &WorldError{err}
			}
			for _, fi := range f.telling(fs, tell) {
				if err := f.delivering(func() error { return fi.Deliver(c.ev, c.rv) }); err != nil {
					return err
				}
			}
		}
	}
	tell(records.Told{})
	f.untell()
	for _, gvr := range SortedResources(written) {
		fs, err := f.feedsOf(gvr)
		if err != nil {
			return &WorldError{err}
		}
		if len(fs) > 0 {
			if err := f.deliverWritten(gvr, written[gvr], fs); err != nil {
				return &WorldError{err}
			}
		}
	}
	return nil
}

// Resync gives every object of every fed informer's store to its event
// handlers as an update with old == new (see feed.Informer.Resync),
// informer by informer in the order the controller asked for them; it
// returns the events told, each before its handlers ran. A handler's
// panic is returned. The caller catches up (CatchUp) first.
func (f *Feeds) Resync() ([]records.Told, error) {
	var told []records.Told
	fs := f.all()
	defer f.untell()
	for _, fi := range f.telling(fs, f.teller(&told)) {
		if err := f.delivering(fi.Resync); err != nil {
			return told, err
		}
	}
	return told, nil
}

// Probe gives every object of every fed informer's store to the
// informer's event handlers as four events, in this order: an add, an
// update to a copy with a later resourceVersion, a delete and a tombstone
// (cache.DeletedFinalStateUnknown); informer by informer in the order the
// controller asked for them and in key order, as the world delivers
// events (see feed.Informer.Call), without changing the stores. It returns
// the events told, each before its handlers ran, and stops at a handler's
// panic, which it returns. The caller catches up (CatchUp) first.
func (f *Feeds) Probe() ([]records.Told, error) {
	var told []records.Told
	tell := f.teller(&told)
	for _, fi := range f.all() {
		for _, obj := range fi.Objects() {
			o, ok := obj.(runtime.Object)
			if !ok {
				continue
			}
			m, err := meta.Accessor(o)
			if err != nil {
				continue
			}
			key := ObjectKey(m.GetNamespace(), m.GetName())
			newer := o.DeepCopyObject()
			if nm, err := meta.Accessor(newer); err == nil {
				nm.SetResourceVersion(laterVersion(m.GetResourceVersion()))
			}
			tomb := cache.DeletedFinalStateUnknown{Key: key, Obj: o}
			args := []any{o, newer, o, tomb}
			calls := []func(cache.ResourceEventHandler){
				func(h cache.ResourceEventHandler) { h.OnAdd(o, false) },
				func(h cache.ResourceEventHandler) { h.OnUpdate(o, newer) },
				func(h cache.ResourceEventHandler) { h.OnDelete(o) },
				func(h cache.ResourceEventHandler) { h.OnDelete(tomb) },
			}
			for i, what := range [...]string{"an add (probe)", "an update (probe)", "a delete (probe)", "a tombstone (probe)"} {
				tell(records.Told{Informer: fi.Name, Resource: fi.Resource.Resource, Key: key, What: what})
				if err := f.delivering(func() error { return fi.Call(what, args[i], calls[i]) }); err != nil {
					return told, err
				}
			}
		}
	}
	return told, nil
}

// laterVersion is a resourceVersion other than rv, after it where rv is a
// number.
func laterVersion(rv string) string {
	if n, err := strconv.ParseUint(rv, 10, 64); err == nil {
		return strconv.FormatUint(n+1, 10)
	}
	return rv + "1"
}

// teller returns a tell that appends each event told to told, marked
// with the work-queue spies' count then.
func (f *Feeds) teller(told *[]records.Told) func(records.Told) {
	return func(t records.Told) {
		t.Mark = f.host.Enqueued()
		*told = append(*told, t)
	}
}

// WorldError is an error of DeliverAs that is not the event handlers'
// (a list or read of the world failed, or an informer's feed).
type WorldError struct{ Err error }

func (e *WorldError) Error() string { return e.Err.Error() }
func (e *WorldError) Unwrap() error { return e.Err }

// telling sets the Tell of each of fs to tell, naming the informer, and
// returns fs.
func (f *Feeds) telling(fs []*feed.Informer, tell func(records.Told)) []*feed.Informer {
	for _, fi := range fs {
		name, resource := fi.Name, fi.Resource.Resource
		fi.Tell = func(what, key string) { tell(records.Told{Informer: name, Resource: resource, Key: key, What: what}) }
	}
	return fs
}

// untell clears the Tell of every fed informer.
func (f *Feeds) untell() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fi := range f.order {
		fi.Tell = nil
	}
}

// changeID names the object a change is of.
func changeID(c change) string {
	key := ""
	if m, err := meta.Accessor(c.ev.Object); err == nil {
		key = ObjectKey(m.GetNamespace(), m.GetName())
	}
	return c.gvr.String() + " " + key
}
