package kube

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"github.com/ctrltest/ctrltest/fixture"
)

// Every resource of the table resolves: each version kube-apiserver
// serves of its kind converts to the type its strategies take, and the
// strategy (and each subresource's) runs on it, defaulted as the server
// decodes it, and finds what kube-apiserver finds in an object with no
// name (but for a LimitRange, which its strategy names). A version
// legacyscheme knows and kube-apiserver does not serve (a beta, an alpha)
// is refused, naming the versions it serves.
func TestTableResolves(t *testing.T) {
	s := server{resources: table()}
	kinds := Kinds()
	slices.SortFunc(kinds, func(a, b schema.GroupKind) int {
		if c := cmpString(a.Group, b.Group); c != 0 {
			return c
		}
		return cmpString(a.Kind, b.Kind)
	})
	for _, gk := range kinds {
		r := s.resources[gk]
		versions := legacyscheme.Scheme.PrioritizedVersionsForGroup(gk.Group)
		served := 0
		for _, gv := range versions {
			gvk := gv.WithKind(gk.Kind)
			if !legacyscheme.Scheme.Recognizes(gvk) {
				continue
			}
			if !isServed(gvk) {
				t.Run(gvk.String()+" unserved", func(t *testing.T) {
					obj, err := legacyscheme.Scheme.New(gvk)
					if err != nil {
						t.Fatal(err)
					}
					obj.GetObjectKind().SetGroupVersionKind(gvk)
					errs := s.Validate(fixture.Validation{Object: obj})
					if len(errs) != 1 || errs[0].Field != "apiVersion" || !strings.Contains(errs[0].Detail, "does not serve "+gk.Kind+" in this version, only in "+gk.Group) {
						t.Errorf("an object of a version kube-apiserver does not serve: %v; want the apiVersion's finding", errs)
					}
				})
				continue
			}
			served++
			t.Run(gvk.String(), func(t *testing.T) {
				obj, err := legacyscheme.Scheme.New(gvk)
				if err != nil {
					t.Fatal(err)
				}
				obj.GetObjectKind().SetGroupVersionKind(gvk)
				Default(obj)
				if r.strategy.NamespaceScoped() {
					m, _ := meta.Accessor(obj)
					m.SetNamespace("default")
				}
				errs := s.Validate(fixture.Validation{Object: obj})
				if gk.Kind == "LimitRange" {
					if len(errs) != 0 {
						t.Errorf("create of a LimitRange with no name: %v; want none (PrepareForCreate names it)", errs)
					}
				} else if !hasRequiredName(errs) {
					t.Errorf("create of an object with no name: %v; want metadata.name: Required value", errs)
				}
				for sub := range r.subresources {
					old := obj.DeepCopyObject()
					m, _ := meta.Accessor(old)
					m.SetName("x")
					m.SetResourceVersion("1")
					errs := s.Validate(fixture.Validation{Object: obj, Old: old, Subresource: sub})
					for _, e := range errs {
						if e.Type == field.ErrorTypeInternal {
							t.Errorf("update of %s: %v", sub, e)
						}
					}
					if len(errs) == 0 {
						t.Errorf("update of %s renaming x to \"\": no error; want the name's", sub)
					}
				}
			})
		}
		if served == 0 {
			t.Errorf("%s: legacyscheme serves no version of it (versions %v)", gk, versions)
		}
	}
}

// isServed: the stable versions (kube-apiserver v1.37 serves no beta or
// alpha of the table's groups by default).
func isServed(gvk schema.GroupVersionKind) bool {
	return !strings.Contains(gvk.Version, "beta") && !strings.Contains(gvk.Version, "alpha")
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// hasRequiredName reports whether errs says metadata.name is required.
func hasRequiredName(errs field.ErrorList) bool {
	for _, e := range errs {
		if e.Field == "metadata.name" && e.Type == field.ErrorTypeRequired {
			return true
		}
	}
	return false
}
