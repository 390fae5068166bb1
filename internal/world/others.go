package world

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrltest/ctrltest/actions"
)

// Other clients of the world: kube-controller-manager's garbage collector
// and namespace controller (internal/companions, wired by the fixture).
// They read the world as stored and write through the server model as any
// client would, so that the informers see their changes as watch events;
// their writes are not the controller's: not in the request log, past the
// test's reactors and the fault sweep's observers.

// StoredResource is a resource of a registered clientset.
type StoredResource struct {
	GVR        schema.GroupVersionResource
	GVK        schema.GroupVersionKind
	Namespaced bool
}

// ResourceOf returns the resource that serves the kind apiVersion and
// kind name (of an owner reference): the registered version, or else
// another version of the same group and kind; false when none does.
func (w *World) ResourceOf(apiVersion, kind string) (StoredResource, bool) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return StoredResource{}, false
	}
	gvk := gv.WithKind(kind)
	for _, cs := range w.clientsets {
		if in, ok := cs.table.ForGVK(gvk); ok {
			return StoredResource{in.GVR, in.GVK, in.Namespaced}, true
		}
	}
	for _, cs := range w.clientsets {
		for _, in := range cs.table.Infos() {
			if in.GVK.GroupKind() == gvk.GroupKind() {
				return StoredResource{in.GVR, in.GVK, in.Namespaced}, true
			}
		}
	}
	return StoredResource{}, false
}

// Stored returns, for each resource seeded or written, sorted, the
// objects the world holds as stored (with the uids the world gave seeds
// that had none, unlike Objects and All, which show them as the test
// wrote them).
func (w *World) Stored() (map[StoredResource][]runtime.Object, []StoredResource, error) {
	out := map[StoredResource][]runtime.Object{}
	var order []StoredResource
	for _, gvr := range w.touchedSorted() {
		in, cs := w.lookupGVR(gvr)
		if in == nil {
			continue
		}
		objs, err := w.trackerObjects(gvr, cs)
		if err != nil {
			return nil, nil, err
		}
		r := StoredResource{in.GVR, in.GVK, in.Namespaced}
		order = append(order, r)
		out[r] = objs
	}
	return out, order, nil
}

// Serve serves a write of another client than the controller's (see
// above); changed reports whether it changed the stored world.
func (w *World) Serve(action clienttesting.Action) (obj runtime.Object, changed bool, err error) {
	cs, err := w.invoker(action)
	if err != nil {
		return nil, false, err
	}
	if action, err = w.typedAction(cs, action); err != nil {
		return nil, false, err
	}
	gvr := action.GetResource()
	in, ok := cs.table.ForGVR(gvr)
	if !ok {
		return nil, false, fmt.Errorf("%v is not served by %v", gvr, cs.iface)
	}
	if err := cs.track(gvr, action.GetNamespace(), action.GetNamespace() == ""); err != nil {
		return nil, false, err
	}
	before, _ := w.backend.changes()
	w.mu.Lock()
	w.touchLocked(in.GVR, cs)
	w.markWrittenLocked(actions.From(action), in.GVR, !w.backend.observes(action))
	w.mu.Unlock()
	handled, obj, err := w.backend.serve(cs, -1, action)
	if !handled && cs.serveTracker != nil {
		handled, obj, err = cs.serveTracker(action)
	}
	if !handled {
		return nil, false, fmt.Errorf("no backend serves %s %v", action.GetVerb(), gvr)
	}
	after, counted := w.backend.changes()
	return obj, err == nil && (after != before || !counted), err
}
