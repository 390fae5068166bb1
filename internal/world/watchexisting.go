package world

import (
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrltest/ctrltest/internal/clientgo"
	"github.com/ctrltest/ctrltest/internal/resources"
)

// kindOf is gvr's kind in table (the zero kind when table has none), for
// clientgo.Watch's list of the objects a watch sends first.
func kindOf(table *resources.Table, gvr schema.GroupVersionResource) schema.GroupVersionKind {
	if table == nil {
		return schema.GroupVersionKind{}
	}
	if in, ok := table.ForGVR(gvr); ok {
		return in.GVK
	}
	return schema.GroupVersionKind{}
}

// Lists with a resourceVersion on every client-go minor. client-go 1.36's
// object tracker gives each list a resourceVersion, and a watch from it
// sends the objects written since (clientgo.Watch); 1.35's gives none, so
// an informer's watch after its list would start from no resourceVersion
// and get every object again. Where the tracker leaves it empty, the
// world's list says the newest resourceVersion of the resource's objects
// (in every namespace): every object the list holds is at or before it,
// every later write after it (the server model gives resourceVersions in
// write order), so the watch after the list sends what was written since,
// as on 1.36. (Not the model's revision: the model lists its store under
// its lock.)

// versionLists makes the clientset's tracker stamp its lists (see above),
// on a client-go whose tracker does not, and answers the watches the fake
// would answer with clientgo.Watch; its tracker, serveTracker and the
// model's store are otherwise unchanged.
func (cs *clientset) versionLists() {
	if clientgo.TrackerSendsExisting() {
		return
	}
	wrap := func(t clienttesting.ObjectTracker) clienttesting.ObjectTracker {
		return &versionedLists{ObjectTracker: t}
	}
	// The world's own wrappers keep their type (seedTracker and the
	// reactors made on them look for it): what they wrap is versioned.
	switch t := cs.tracker.(type) {
	case *fieldManagedTracker:
		t.ObjectTracker = wrap(t.ObjectTracker)
		return
	case *pluralTracker:
		t.ObjectTracker = wrap(t.ObjectTracker)
		return
	}
	cs.tracker = wrap(cs.tracker)
	if cs.serveTracker != nil {
		cs.serveTracker = clienttesting.ObjectReaction(cs.tracker)
		return
	}
	// The fake's own watch reactor would watch without the existing
	// objects; the tracker's watch is the same one, through clientgo.Watch.
	cs.fake.PrependWatchReactor("*", watchOf(cs.tracker, cs.table))
}

// unserved answers a request that neither the backend nor serveTracker
// answers: the fake's own tracker does (not handled), but for a list where
// the tracker versions none (versionLists), answered from cs.tracker.
func (cs *clientset) unserved(action clienttesting.Action) (bool, runtime.Object, error) {
	if _, ok := cs.tracker.(*versionedLists); !ok || action.GetVerb() != "list" || action.GetSubresource() != "" {
		return false, nil, nil
	}
	return clienttesting.ObjectReaction(cs.tracker)(action)
}

// versionedLists is a tracker whose lists have a resourceVersion.
type versionedLists struct {
	clienttesting.ObjectTracker
}

func (t *versionedLists) List(gvr schema.GroupVersionResource, gvk schema.GroupVersionKind, ns string, opts ...metav1.ListOptions) (runtime.Object, error) {
	list, err := t.ObjectTracker.List(gvr, gvk, ns, opts...)
	if err != nil {
		return list, err
	}
	lm, err := meta.ListAccessor(list)
	if err != nil || lm.GetResourceVersion() != "" {
		return list, nil
	}
	all := list
	if ns != "" {
		if all, err = t.ObjectTracker.List(gvr, gvk, ""); err != nil {
			return list, nil
		}
	}
	items, _ := meta.ExtractList(all)
	var rv int64
	for _, item := range items {
		if m, err := meta.Accessor(item); err == nil {
			if n, err := strconv.ParseInt(m.GetResourceVersion(), 10, 64); err == nil && n > rv {
				rv = n
			}
		}
	}
	if rv > 0 {
		lm.SetResourceVersion(strconv.FormatInt(rv, 10))
	}
	return list, nil
}
