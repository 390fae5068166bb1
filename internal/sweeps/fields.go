package sweeps

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// Field is a field of an object's spec that another writer changes in the
// stale-cache sweep: its path from the object's root, and its value before
// and after the change.
type Field struct {
	Path     []string
	From, To any
}

// String formats the field's path, as "spec.replicas".
func (f Field) String() string { return strings.Join(f.Path, ".") }

// SpecField picks the field of seed's spec that another writer changes:
// spec.replicas (what an autoscaler writes) when it is an integer, else the
// first top-level integer or boolean field of the spec by name. settled is
// the object as the run without lag left it: a field the controller
// changed there is the controller's, and not picked. An integer is raised
// by one, a boolean flipped; strings are left alone (most are enumerations
// or names whose other values the server refuses). It reports false when
// the spec has no such field.
func SpecField(seed, settled runtime.Object) (Field, bool) { return pickField("spec", seed, settled) }

// StatusField is SpecField for the object's status: a field another
// writer (a kubelet, another controller) sets in a status the controller
// also writes.
func StatusField(seed, settled runtime.Object) (Field, bool) {
	return pickField("status", seed, settled)
}

// pickField is SpecField for the part of the object named section.
func pickField(section string, seed, settled runtime.Object) (Field, bool) {
	spec, ok := sectionOf(seed, section)
	if !ok {
		return Field{}, false
	}
	now, _ := sectionOf(settled, section)
	names := make([]string, 0, len(spec))
	for name := range spec {
		names = append(names, name)
	}
	sort.Strings(names)
	if i := sort.SearchStrings(names, "replicas"); i < len(names) && names[i] == "replicas" {
		names = append([]string{"replicas"}, append(names[:i:i], names[i+1:]...)...)
	}
	for _, name := range names {
		v := spec[name]
		if !reflect.DeepEqual(v, now[name]) {
			continue // the controller wrote it
		}
		var to any
		switch v := v.(type) {
		case int64:
			to = v + 1
		case float64:
			if v != float64(int64(v)) {
				continue
			}
			to = v + 1
		case bool:
			to = !v
		default:
			continue
		}
		return Field{Path: []string{section, name}, From: v, To: to}, true
	}
	return Field{}, false
}

// sectionOf returns obj's part named section ("spec", "status") as
// unstructured.
func sectionOf(obj runtime.Object, section string) (map[string]any, bool) {
	if obj == nil {
		return nil, false
	}
	u, err := toUnstructured(obj)
	if err != nil {
		return nil, false
	}
	m, ok := u[section].(map[string]any)
	return m, ok
}

func toUnstructured(obj runtime.Object) (map[string]any, error) {
	if u, ok := obj.(runtime.Unstructured); ok {
		return u.UnstructuredContent(), nil
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
}

// Value returns the value of f's field in obj, and false when obj has no
// such field.
func (f Field) Value(obj runtime.Object) (any, bool) {
	u, err := toUnstructured(obj)
	if err != nil {
		return nil, false
	}
	var v any = u
	for _, p := range f.Path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[p]; !ok {
			return nil, false
		}
	}
	return v, true
}

// Holds reports whether obj holds the field's changed value. An absent
// field holds false and 0, as a typed object omits them.
func (f Field) Holds(obj runtime.Object) bool {
	v, ok := f.Value(obj)
	if !ok {
		return f.To == false || numeric(f.To) == float64(0)
	}
	return numeric(v) == numeric(f.To)
}

// numeric returns v as a float64 when it is a number, so that an integer
// read back from JSON as a float compares equal; v otherwise.
func numeric(v any) any {
	switch n := v.(type) {
	case int64:
		return float64(n)
	case int:
		return float64(n)
	case int32:
		return float64(n)
	}
	return v
}

// Set sets the field to its changed value in obj, in place: a typed object
// goes through its unstructured form.
func (f Field) Set(obj runtime.Object) error {
	if u, ok := obj.(runtime.Unstructured); ok {
		return setIn(u.UnstructuredContent(), f.Path, f.To)
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	if err := setIn(u, f.Path, f.To); err != nil {
		return err
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u, obj)
}

func setIn(m map[string]any, path []string, v any) error {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return fmt.Errorf("the object has no %s", strings.Join(path, "."))
		}
		m = next
	}
	m[path[len(path)-1]] = v
	return nil
}
