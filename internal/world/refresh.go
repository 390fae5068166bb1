package world

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/internal/clientgo"
	"github.com/ctrltest/ctrltest/internal/delivery"
)

// touch notes that gvr of cs holds objects the informers should mirror.
// The caller holds w.mu.
func (w *World) touchLocked(gvr schema.GroupVersionResource, cs *clientset) {
	if w.touched == nil {
		w.touched = map[schema.GroupVersionResource]*clientset{}
	}
	w.touched[gvr] = cs
}

// touchedSorted returns the resources to mirror, in a fixed order.
func (w *World) touchedSorted() []schema.GroupVersionResource {
	w.mu.Lock()
	defer w.mu.Unlock()
	gvrs := make([]schema.GroupVersionResource, 0, len(w.touched))
	for gvr := range w.touched {
		gvrs = append(gvrs, gvr)
	}
	sort.Slice(gvrs, func(i, j int) bool { return gvrs[i].String() < gvrs[j].String() })
	return gvrs
}

// trackerObjects lists what the tracker of cs holds for gvr.
func (w *World) trackerObjects(gvr schema.GroupVersionResource, cs *clientset) ([]runtime.Object, error) {
	in, ok := cs.table.ForGVR(gvr)
	if !ok {
		return nil, fmt.Errorf("%v is not served by %v", gvr, cs.iface)
	}
	if err := cs.track(gvr, "", true); err != nil {
		return nil, err
	}
	list, err := cs.store.List(gvr, in.GVK, "")
	if err != nil {
		return nil, err
	}
	return meta.ExtractList(list)
}

// markDirtyLocked notes a write for Refresh. The caller holds w.mu.
func (w *World) markDirtyLocked(a actions.Action, gvr schema.GroupVersionResource) {
	w.markWrittenLocked(a, gvr, true)
}

// markWrittenLocked notes a write for the world's digest and, when dirty
// (no recorded change will tell of it), for Refresh. The caller holds w.mu.
func (w *World) markWrittenLocked(a actions.Action, gvr schema.GroupVersionResource, dirty bool) {
	if w.writtenGVRs == nil {
		w.writtenGVRs = map[schema.GroupVersionResource]bool{}
	}
	w.writtenGVRs[gvr] = true
	if w.writtenKeys == nil {
		w.writtenKeys = map[schema.GroupVersionResource]*dirtySet{}
	}
	if w.dirty == nil {
		w.dirty = map[schema.GroupVersionResource]*dirtySet{}
	}
	noteWrite(w.writtenKeys, gvr, a)
	if dirty {
		noteWrite(w.dirty, gvr, a)
	}
}

// noteWrite adds the object a writes to the set of gvr in sets.
func noteWrite(sets map[schema.GroupVersionResource]*dirtySet, gvr schema.GroupVersionResource, a actions.Action) {
	delivery.NoteWrite(sets, gvr, a.Verb == actions.VerbDeleteCollection || a.Name == "", ObjectKey(a.Namespace, a.Name))
}

// takeDirty returns the writes not yet delivered (see markDirtyLocked) and
// forgets them.
func (w *World) takeDirty() map[schema.GroupVersionResource]*dirtySet {
	w.mu.Lock()
	defer w.mu.Unlock()
	dirty := w.dirty
	w.dirty = nil
	return dirty
}

// Refresh is Refresh after Start; startFactories starts informers asked
// for since (informer mode).
func (w *World) Refresh(startFactories func()) error {
	dirty := w.takeDirty()
	if err := w.IndexAll(); err != nil {
		return err
	}
	if !w.informers {
		return w.deliver(dirty)
	}
	// An informer asked for since the start is started now, as a
	// controller's Run would start it: never a wait for an informer that
	// does not run.
	if w.lateInformers() {
		startFactories()
	}
	// The running informers watch the changes: wait for their resources.
	written := map[schema.GroupVersionResource]bool{}
	for gvr := range dirty {
		written[gvr] = true
	}
	for _, gvr := range w.feeds.TakeChanged() {
		written[gvr] = true
	}
	gvrs := delivery.SortedResources(written)
	for _, gvr := range gvrs {
		w.mu.Lock()
		cs := w.touched[gvr]
		w.mu.Unlock()
		informer, ok := cs.indexedInformer(gvr)
		if !ok { // the controller has no informer for it: nothing to refresh
			continue
		}
		scope, err := w.scopeOf(cs, gvr, informer) // what the informer lists
		if err != nil {
			return fmt.Errorf("fixture: refreshing %v: %v", gvr, err)
		}
		objs, err := w.trackerObjects(gvr, cs)
		if err != nil {
			return fmt.Errorf("fixture: refreshing %v: %v", gvr, err)
		}
		if err := w.awaitInformer(gvr, informer, scope.Filter(objs)); err != nil {
			return err
		}
	}
	return w.refreshSources(gvrs)
}

// lateInformers reports whether an informer was asked for since the
// informers were started (informer mode) and does not run yet.
func (w *World) lateInformers() bool {
	for _, cs := range w.clientsets {
		requested, _ := clientgo.FactoryInformers(cs.factory)
		for _, inf := range requested {
			if !inf.HasSynced() && !inf.IsStopped() {
				return true
			}
		}
	}
	return w.sources.Late()
}

// awaitInformer waits until a running informer's store holds objs.
func (w *World) awaitInformer(gvr schema.GroupVersionResource, informer cache.SharedIndexInformer, objs []runtime.Object) error {
	owns := func(key string) bool { return w.backend.owns(gvr, key) }
	return delivery.AwaitInformer(w.ctx, w.timeout, gvr, informer, objs, owns)
}

// CacheCopy is a deep copy of an object in an informer's indexer
// (delivery.CacheCopy).
type CacheCopy = delivery.CacheCopy

// SnapshotCaches copies the objects of the indexers the controller reads
// that a sync of a key in namespace can reach: the objects of that
// namespace and cluster-scoped ones, or, for a cluster-scoped key (an
// empty namespace), every object. A copy made for an earlier sync is
// reused while the indexer holds the same object (that sync's check found
// it unchanged), so a sync pays for copies of the objects that are new
// since the last one only.
func (w *World) SnapshotCaches(namespace string) []CacheCopy {
	copies := make(map[runtime.Object]runtime.Object, len(w.copies))
	defer func() { w.copies = copies }()
	var out []CacheCopy
	for _, gvr := range w.touchedSorted() {
		w.mu.Lock()
		cs := w.touched[gvr]
		w.mu.Unlock()
		informer, ok := cs.indexedInformer(gvr)
		if !ok {
			continue
		}
		in, _ := cs.table.ForGVR(gvr)
		out = w.snapshotIndexer(gvr, informer.GetIndexer(), in != nil && in.Namespaced, namespace, copies, out)
	}
	return w.snapshotSources(namespace, copies, out)
}

// IndexAll fills the indexers of informers the controller asked for since
// the last call (see index).
func (w *World) IndexAll() error {
	for _, cs := range w.clientsets {
		if err := w.index(cs); err != nil {
			return err
		}
	}
	return w.indexSources()
}

// CacheMutations describes every snapshotted object the controller changed.
func CacheMutations(snap []CacheCopy) []string { return delivery.CacheMutations(snap) }

// snapshotIndexer adds to out copies of the objects of indexer (see
// delivery.SnapshotIndexer), reusing the copies of the last snapshot
// (w.copies).
func (w *World) snapshotIndexer(gvr schema.GroupVersionResource, indexer cache.Indexer, namespaced bool, namespace string, copies map[runtime.Object]runtime.Object, out []CacheCopy) []CacheCopy {
	return delivery.SnapshotIndexer(gvr, indexer, namespaced, namespace, w.copies, copies, out)
}

// Digest is a fingerprint of the stored world, without what changes
// on every write (resourceVersion, managed fields). It covers the objects
// written since the world was seeded (the whole resource after a
// delete-collection or a create without a name): the others are the same
// in every world a row compares.
func (w *World) Digest() (string, error) {
	w.mu.Lock()
	type part struct {
		gvr  schema.GroupVersionResource
		cs   *clientset
		all  bool
		keys []string
	}
	parts := make([]part, 0, len(w.writtenKeys))
	for gvr, d := range w.writtenKeys {
		p := part{gvr: gvr, cs: w.touched[gvr], all: d.All}
		for k := range d.Keys {
			p.keys = append(p.keys, k)
		}
		sort.Strings(p.keys)
		parts = append(parts, p)
	}
	w.mu.Unlock()
	sort.Slice(parts, func(i, j int) bool { return parts[i].gvr.String() < parts[j].gvr.String() })
	h := fnv.New128a()
	text := func(s string) {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	// The objects' JSON goes to the hash as it is encoded, not through a
	// buffer of its own (a digest is only compared with the digests of
	// the same process).
	enc := json.NewEncoder(h)
	write := func(key string, obj runtime.Object) {
		text(key)
		if obj == nil {
			text("absent")
			return
		}
		if m, err := meta.Accessor(obj); err == nil { // obj is a copy
			m.SetResourceVersion("")
			m.SetManagedFields(nil)
		}
		if err := enc.Encode(obj); err != nil {
			fmt.Fprintf(h, "%#v", obj)
		}
		h.Write([]byte{0})
	}
	for _, p := range parts {
		text(p.gvr.String())
		if p.all {
			objs, err := w.trackerObjects(p.gvr, p.cs)
			if err != nil {
				return "", fmt.Errorf("fixture: %v", err)
			}
			for _, obj := range w.sortedView(objs) {
				m, _ := meta.Accessor(obj)
				write(ObjectKey(m.GetNamespace(), m.GetName()), obj)
			}
			continue
		}
		for _, key := range p.keys {
			ns, name, ok := strings.Cut(key, "/")
			if !ok {
				ns, name = "", key
			}
			if err := p.cs.track(p.gvr, ns, false); err != nil {
				return "", fmt.Errorf("fixture: %v", err)
			}
			obj, err := p.cs.store.Get(p.gvr, ns, name)
			if err != nil {
				obj = nil
			}
			write(key, obj)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}
