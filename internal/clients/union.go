package clients

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrltest/ctrltest/internal/resources"
)

// UnionScheme makes the scheme of every type of schemes (the registered
// clientsets', in order).
func UnionScheme(schemes []*runtime.Scheme) *runtime.Scheme {
	s := runtime.NewScheme()
	// SetVersionPriority replaces a group's priority: one call per group,
	// with its versions in order.
	var groups []string
	versions := map[string][]schema.GroupVersion{}
	for _, scheme := range schemes {
		for gvk, t := range scheme.AllKnownTypes() {
			if !s.Recognizes(gvk) {
				s.AddKnownTypeWithName(gvk, reflect.New(t).Interface().(runtime.Object))
			}
		}
		for _, gv := range scheme.PrioritizedVersionsAllGroups() {
			if _, ok := versions[gv.Group]; !ok {
				groups = append(groups, gv.Group)
			}
			versions[gv.Group] = append(versions[gv.Group], gv)
		}
	}
	for _, g := range groups {
		_ = s.SetVersionPriority(versions[g]...)
	}
	return s
}

// UnionMapper makes the REST mapper of every type of tables, with the
// version priorities of schemes (the registered clientsets', in order).
func UnionMapper(tables []*resources.Table, schemes []*runtime.Scheme) meta.RESTMapper {
	var gvs []schema.GroupVersion
	seen := map[schema.GroupVersion]bool{}
	for _, table := range tables {
		for _, in := range table.Infos() {
			if gv := in.GVK.GroupVersion(); !seen[gv] {
				seen[gv] = true
				gvs = append(gvs, gv)
			}
		}
	}
	m := meta.NewDefaultRESTMapper(gvs)
	for _, table := range tables {
		for _, in := range table.Infos() {
			scope := meta.RESTScopeRoot
			if in.Namespaced {
				scope = meta.RESTScopeNamespace
			}
			singular := in.GVR.GroupVersion().WithResource(strings.ToLower(in.GVK.Kind))
			m.AddSpecific(in.GVK, in.GVR, singular, scope)
		}
	}
	// A resource or kind named without a version is the group's preferred
	// version's, as a discovery-backed mapper answers (discovery.go here names
	// the same preferred versions): apps deployments is apps/v1's.
	var pm meta.PriorityRESTMapper
	pm.Delegate = m
	groups := map[string]bool{}
	for _, gv := range gvs {
		if groups[gv.Group] {
			continue
		}
		groups[gv.Group] = true
		for _, scheme := range schemes {
			for _, p := range scheme.PrioritizedVersionsForGroup(gv.Group) {
				if !seen[p] {
					continue
				}
				pm.ResourcePriority = append(pm.ResourcePriority, p.WithResource(meta.AnyResource))
				pm.KindPriority = append(pm.KindPriority, p.WithKind(meta.AnyKind))
			}
		}
	}
	return pm
}

// Views are the union scheme and REST mapper of one set of registrations,
// shared by every fixture made with that set: they depend on the
// registrations only, and making them is most of the cost of a small
// fixture's first Scheme or RESTMapper call (hundreds of kube types).
// Callers must not change them.
type Views struct {
	// tables keep the key's tables alive, so that their addresses are
	// not reused by other tables while the entry exists.
	tables     []*resources.Table
	schemeOnce sync.Once
	s          *runtime.Scheme
	mapperOnce sync.Once
	m          meta.RESTMapper
}

// Scheme is the UnionScheme of schemes, the registrations' (made once).
func (v *Views) Scheme(schemes []*runtime.Scheme) *runtime.Scheme {
	v.schemeOnce.Do(func() { v.s = UnionScheme(schemes) })
	return v.s
}

// RESTMapper is the UnionMapper of the registrations' tables, with the
// version priorities of schemes, theirs (made once).
func (v *Views) RESTMapper(schemes []*runtime.Scheme) meta.RESTMapper {
	v.mapperOnce.Do(func() { v.m = UnionMapper(v.tables, schemes) })
	return v.m
}

// sharedViews holds the views of each set of registrations, keyed by the
// identity of their types tables (one per registration, made once). It
// only grows with the number of distinct registration sets of a test
// binary, a handful.
var sharedViews sync.Map // string → *Views

// SharedViews returns the views of the registrations whose tables are
// tables, in order.
func SharedViews(tables []*resources.Table) *Views {
	var key strings.Builder
	for _, t := range tables {
		fmt.Fprintf(&key, "%p/", t)
	}
	v, _ := sharedViews.LoadOrStore(key.String(), &Views{tables: tables})
	return v.(*Views)
}
