package clients

import (
	"reflect"
	"strings"

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
