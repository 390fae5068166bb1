package trackers

import (
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
)

// Lists with a resourceVersion on every client-go minor. client-go 1.36's
// object tracker gives each list a resourceVersion, and a watch from it
// sends the objects written since (clientgo.Watch); 1.35's gives none, so
// an informer's watch after its list would start from no resourceVersion
// and get every object again. Where the tracker leaves it empty, a
// versioned tracker's list says the newest resourceVersion of the
// resource's objects (in every namespace): every object the list holds is
// at or before it, every later write after it (the server model gives
// resourceVersions in write order), so the watch after the list sends
// what was written since, as on 1.36. (Not the model's revision: the
// model lists its store under its lock.)

// Versioned returns tracker with lists that have a resourceVersion (see
// above).
func Versioned(tracker clienttesting.ObjectTracker) clienttesting.ObjectTracker {
	return &versionedLists{ObjectTracker: tracker}
}

// IsVersioned reports whether t is a tracker Versioned made.
func IsVersioned(t clienttesting.ObjectTracker) bool {
	_, ok := t.(*versionedLists)
	return ok
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
