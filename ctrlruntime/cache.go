package ctrlruntime

import (
	"fmt"
	"slices"
	"sort"

	"github.com/ctrltest/ctrltest/fixture/adapter"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// matcher returns the filter of a List's label and field selectors. Field
// selectors other than metadata.name and metadata.namespace need an index
// (WithIndex) and must be exact matches, as with controller-runtime's cache.
func (c *Client) matcher(r resourceInfo, o *client.ListOptions) (func(runtime.Object) (bool, error), error) {
	type fieldMatch struct {
		field, value string
		extract      client.IndexerFunc
	}
	var fms []fieldMatch
	if o.FieldSelector != nil && !o.FieldSelector.Empty() {
		for _, req := range o.FieldSelector.Requirements() {
			if req.Operator != selection.Equals && req.Operator != selection.DoubleEquals {
				return nil, fmt.Errorf("ctrlruntime: List of %s: field selector %q: only exact matches (field=value) are supported, as with controller-runtime's cache", r.gvk.Kind, o.FieldSelector)
			}
			fm := fieldMatch{field: req.Field, value: req.Value}
			switch req.Field {
			case "metadata.name", "metadata.namespace":
			default:
				c.indexMu.Lock()
				fm.extract = c.indexes[r.gvk][req.Field]
				c.indexMu.Unlock()
				if fm.extract == nil {
					return nil, fmt.Errorf("ctrlruntime: List of %s by field %q: no index of that field is registered for %s; register one with ctrlruntime.WithIndex(<a %s>, %q, extract) (as the manager's GetFieldIndexer().IndexField does)",
						r.gvk.Kind, req.Field, r.gvk.Kind, r.gvk.Kind, req.Field)
				}
			}
			fms = append(fms, fm)
		}
	}
	labelSel := o.LabelSelector
	return func(obj runtime.Object) (bool, error) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return false, err
		}
		if labelSel != nil && !labelSel.Matches(labelSet(m.GetLabels())) {
			return false, nil
		}
		for _, fm := range fms {
			switch fm.field {
			case "metadata.name":
				if m.GetName() != fm.value {
					return false, nil
				}
			case "metadata.namespace":
				if m.GetNamespace() != fm.value {
					return false, nil
				}
			default:
				co, ok := obj.(client.Object)
				if !ok || !slices.Contains(fm.extract(co), fm.value) {
					return false, nil
				}
			}
		}
		return true, nil
	}, nil
}

type labelSet map[string]string

func (s labelSet) Has(k string) bool              { _, ok := s[k]; return ok }
func (s labelSet) Get(k string) string            { return s[k] }
func (s labelSet) Lookup(k string) (string, bool) { v, ok := s[k]; return v, ok }

// indexer returns the indexer holding the fixture's view of r, seeding
// the world first if no sync did yet (as a request does).
func (c *Client) indexer(r resourceInfo) (cache.Indexer, error) {
	c.f.Start()
	inf, err := adapter.Informer(c.f, r.gvr)
	if err != nil {
		return nil, err
	}
	return inf.GetIndexer(), nil
}

// cacheGet reads from the informers' view.
func (c *Client) cacheGet(r resourceInfo, key client.ObjectKey, obj client.Object, o *client.GetOptions) error {
	idx, err := c.indexer(r)
	if err != nil {
		return err
	}
	k := key.Name
	if r.namespaced && key.Namespace != "" {
		k = key.Namespace + "/" + key.Name
	}
	item, ok, err := idx.GetByKey(k)
	if err != nil {
		return err
	}
	if !ok {
		return apierrors.NewNotFound(r.gvr.GroupResource(), key.Name)
	}
	src := item.(runtime.Object)
	if c.deepCopy(o.UnsafeDisableDeepCopy) {
		src = src.DeepCopyObject()
	}
	return c.into(obj, src, r.gvk)
}

func (c *Client) deepCopy(unsafe *bool) bool {
	if unsafe != nil {
		return !*unsafe
	}
	return c.copy
}

// cacheList lists from the informers' view, sorted by namespace and name.
func (c *Client) cacheList(r resourceInfo, list client.ObjectList, o *client.ListOptions, match func(runtime.Object) (bool, error)) error {
	idx, err := c.indexer(r)
	if err != nil {
		return err
	}
	var items []any
	if ns := r.ns(o.Namespace); ns != "" {
		if items, err = idx.ByIndex(cache.NamespaceIndex, ns); err != nil {
			return err
		}
	} else {
		items = idx.List()
	}
	var kept []runtime.Object
	for _, it := range items {
		obj := it.(runtime.Object)
		if ok, err := match(obj); err != nil {
			return err
		} else if !ok {
			continue
		}
		if c.deepCopy(o.UnsafeDisableDeepCopy) {
			obj = obj.DeepCopyObject()
		}
		kept = append(kept, obj)
	}
	sort.Slice(kept, func(i, j int) bool {
		a, _ := cache.MetaNamespaceKeyFunc(kept[i])
		b, _ := cache.MetaNamespaceKeyFunc(kept[j])
		return a < b
	})
	return c.intoList(list, kept, r.gvk, nil)
}
