package trackers

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Lists remember, by resource, namespace and selectors, the last list
// with selectors a clientset answered: a watch from its resourceVersion
// (an informer's, after its list) follows those objects.
type Lists struct{ m sync.Map }

// listedKey names a list's resource, namespace and selectors.
type listedKey struct {
	gvr                    schema.GroupVersionResource
	namespace, labels, fld string
}

// listedItems are the items of a list at its resourceVersion.
type listedItems struct {
	resourceVersion string
	items           []runtime.Object
}

func newListedKey(gvr schema.GroupVersionResource, ns string, ls labels.Selector, fs fields.Selector) listedKey {
	k := listedKey{gvr: gvr, namespace: ns}
	if ls != nil {
		k.labels = ls.String()
	}
	if fs != nil {
		k.fld = fs.String()
	}
	return k
}

// Note remembers the items of a list with selectors.
func (s *Lists) Note(gvr schema.GroupVersionResource, ns string, ls labels.Selector, fs fields.Selector, list runtime.Object) {
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return
	}
	s.m.Store(newListedKey(gvr, ns, ls, fs), listedItems{resourceVersion: lm.GetResourceVersion(), items: items})
}

// KnownAt returns the items of the last list with these selectors if it
// was at resourceVersion rv.
func (s *Lists) KnownAt(gvr schema.GroupVersionResource, ns string, ls labels.Selector, fs fields.Selector, rv string) ([]runtime.Object, bool) {
	v, ok := s.m.Load(newListedKey(gvr, ns, ls, fs))
	if !ok {
		return nil, false
	}
	l := v.(listedItems)
	return l.items, l.resourceVersion == rv
}
