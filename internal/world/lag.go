package world

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrltest/ctrltest/actions"
)

// The informers lag the stored world when some of its changes reach them
// later than usual. fixture's stale-cache sweep makes the lags a cluster
// has (a watch event that arrives after the next sync started) with two
// switches:
//
//   - Hold: while held, Refresh delivers nothing; the changes of the world
//     (and the objects written that no recorded change covers) wait, in
//     order, for the first Refresh after Release. Informers asked for
//     meanwhile are still filled from a list of the world as it is: a
//     reflector's list is fresh;
//   - Hide: an object leaves the caches of the informers of its resource,
//     silently (no handler is told), and comes back as an add at the next
//     Refresh: an object created in the world whose add event has not
//     arrived.

// lagState is what the lag switches set; guarded by feedMu.
type lagState struct {
	held bool
}

// Hold keeps the world's changes from the informers until Release.
func (w *World) Hold() {
	w.feedMu.Lock()
	defer w.feedMu.Unlock()
	w.lag.held = true
}

// Release ends Hold: the next Refresh delivers what was held, in order,
// then what came since.
func (w *World) Release() {
	w.feedMu.Lock()
	defer w.feedMu.Unlock()
	w.lag.held = false
}

// holding reports whether deliveries are held.
func (w *World) holding() bool {
	w.feedMu.Lock()
	defer w.feedMu.Unlock()
	return w.lag.held
}

// keepDirty puts written sets Refresh took back, for a later Refresh.
func (w *World) keepDirty(dirty map[schema.GroupVersionResource]*dirtySet) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dirty == nil {
		w.dirty = map[schema.GroupVersionResource]*dirtySet{}
	}
	for gvr, d := range dirty {
		into := w.dirty[gvr]
		if into == nil {
			w.dirty[gvr] = d
			continue
		}
		into.all = into.all || d.all
		for k := range d.keys {
			into.keys[k] = true
		}
	}
}

// Hide removes the object with the type, namespace and name of example
// from the stores of the informers of its resource without telling their
// handlers; the next Refresh delivers it as it then is, as an add. It
// reports whether any informer's store held it.
func (w *World) Hide(example runtime.Object) (bool, error) {
	w.t.Helper()
	in, _ := w.Lookup(example)
	if in == nil {
		return false, fmt.Errorf("no registered clientset serves %s", Describe(example))
	}
	m, err := meta.Accessor(example)
	if err != nil {
		return false, err
	}
	key := ObjectKey(m.GetNamespace(), m.GetName())
	hidden := false
	for _, fi := range w.feedsOf(in.GVR) {
		indexer := fi.Informer.GetIndexer()
		obj, ok, err := indexer.GetByKey(key)
		if err != nil {
			return false, err
		}
		if !ok {
			continue
		}
		if err := indexer.Delete(obj); err != nil {
			return false, err
		}
		hidden = true
	}
	if hidden {
		w.mu.Lock()
		if w.dirty == nil {
			w.dirty = map[schema.GroupVersionResource]*dirtySet{}
		}
		noteWrite(w.dirty, in.GVR, actions.Action{Verb: actions.VerbUpdate, Namespace: m.GetNamespace(), Name: m.GetName()})
		w.mu.Unlock()
	}
	return hidden, nil
}

// ObjectsOf returns every object of gvr the world holds now, sorted by
// namespace and name; nil when no registered clientset serves gvr.
func (w *World) ObjectsOf(gvr schema.GroupVersionResource) ([]runtime.Object, error) {
	_, cs := w.lookupGVR(gvr)
	if cs == nil {
		return nil, nil
	}
	objs, err := w.trackerObjects(gvr, cs)
	if err != nil {
		return nil, err
	}
	return w.sortedView(objs), nil
}
