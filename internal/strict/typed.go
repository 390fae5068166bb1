package strict

import (
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Typed returns obj, typed with the first of schemes that recognizes its
// kind, or the items of a list, typed: an unknown field is an error, as a
// typo in a manifest would be. Typed objects are returned as they are;
// groupVersions names what the schemes serve in errors.
func Typed(obj runtime.Object, schemes []*runtime.Scheme, groupVersions func() []string) ([]runtime.Object, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok && u.IsList() {
		list, err := u.ToList()
		if err != nil {
			return nil, err
		}
		obj = list
	}
	if meta.IsListType(obj) {
		items, err := meta.ExtractListWithAlloc(obj)
		if err != nil {
			return nil, fmt.Errorf("reading the list's items: %v", err)
		}
		var out []runtime.Object
		for j, item := range items {
			if raw, ok := item.(*runtime.Unknown); ok { // an item of a typed List given as raw JSON
				item, err = runtime.Decode(unstructured.UnstructuredJSONScheme, raw.Raw)
				if err != nil {
					return nil, fmt.Errorf("list item %d: %v", j, err)
				}
			}
			if v := reflect.ValueOf(item); item == nil || v.Kind() == reflect.Pointer && v.IsNil() {
				return nil, fmt.Errorf("list item %d is nil", j)
			}
			typed, err := Typed(item, schemes, groupVersions)
			if err != nil {
				return nil, fmt.Errorf("list item %d (%s): %v", j, Describe(item), err)
			}
			out = append(out, typed...)
		}
		return out, nil
	}
	u, ok := obj.(runtime.Unstructured)
	if !ok {
		return []runtime.Object{obj}, nil
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		return nil, fmt.Errorf("an unstructured object needs apiVersion and kind")
	}
	for _, scheme := range schemes {
		if !scheme.Recognizes(gvk) {
			continue
		}
		typed, err := scheme.New(gvk)
		if err != nil {
			return nil, err
		}
		if _, ok := typed.(runtime.Unstructured); ok {
			// A custom resource held as unstructured (a CRD with no Go
			// type, see WithCustomResources).
			uu, ok := obj.(*unstructured.Unstructured)
			if !ok {
				uu = &unstructured.Unstructured{Object: u.UnstructuredContent()}
			}
			return []runtime.Object{uu}, nil
		}
		if err := FromUnstructured(u.UnstructuredContent(), typed); err != nil {
			return nil, fmt.Errorf("converting it to %T: %v", typed, err)
		}
		return []runtime.Object{typed}, nil
	}
	return nil, fmt.Errorf("no registered clientset has a typed form of %s (registered group/versions: %s); register the clientset of its API group with fixture.WithClientset",
		gvk, strings.Join(groupVersions(), ", "))
}

// Describe names an object in a message: its Go type, its kind and its
// namespace/name.
func Describe(obj runtime.Object) string {
	s := fmt.Sprintf("Go type %T", obj)
	if gvk := obj.GetObjectKind().GroupVersionKind(); !gvk.Empty() {
		s = fmt.Sprintf("%T, %s", obj, gvk)
	}
	if m, err := meta.Accessor(obj); err == nil && m.GetName() != "" {
		name := m.GetName()
		if m.GetNamespace() != "" {
			name = m.GetNamespace() + "/" + name
		}
		s += fmt.Sprintf(" %q", name)
	}
	return s
}
