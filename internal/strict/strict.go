// Package strict converts unstructured objects to typed ones as
// kube-apiserver's strict field validation does: an unknown field is an
// error. It is the validating converter of k8s.io/apimachinery, answering
// the same, at the cost of the plain conversion where no field is
// unknown.
package strict

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
)

// FromUnstructured converts u into typed, a pointer to a typed
// object, as runtime.DefaultUnstructuredConverter's
// FromUnstructuredWithValidation does with unknown fields an error: the
// same object, the same error. That converter's bookkeeping of the keys
// it matched (a set per struct, a path per key) costs more than the
// conversion itself, and a request's object mostly has no unknown field:
// the plain conversion, then a walk of u over the keys the converter
// knows for each type (see keyNode), which allocates nothing, tell that.
// What the walk is unsure of, and an error, the validating converter
// answers, on a zeroed object.
func FromUnstructured(u map[string]any, typed runtime.Object) error {
	v := reflect.ValueOf(typed)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		if runtime.DefaultUnstructuredConverter.FromUnstructured(u, typed) == nil && keyNodeOf(v.Type().Elem()).known(u) {
			return nil
		}
		v.Elem().SetZero()
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u, typed, true)
}

// keyNode is what the walk of FromUnstructured needs to know of a
// Go type, made once per type (keyNodeOf): how the converter
// (k8s.io/apimachinery/pkg/runtime's fromUnstructured) reads a JSON value
// into it, and the nodes of the types it reads the value's parts into.
type keyNode struct {
	reads keyReading
	// elem is a pointer's target, a map's values, a slice's items.
	elem *keyNode
	// bytes: a []byte, which the converter reads from a base64 string.
	bytes bool
	// fields are a struct's keys (its inlined structs' included).
	fields map[string]*keyNode
}

// keyReading is how the converter reads a JSON value into a type.
type keyReading int

const (
	// readsAny: a scalar, an interface, or a type the converter decodes
	// through JSON (metav1.Time, resource.Quantity, ...), whose keys it
	// does not check.
	readsAny keyReading = iota
	readsPointer
	readsMap
	readsSlice
	readsStruct
	// readsUnsure: a struct whose keys the walk does not know (see
	// addStructKeys).
	readsUnsure
)

// jsonUnmarshaler is what the converter decodes through JSON.
var jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()

// keyNodes caches keyNodeOf: a type's node depends on the type alone.
// Nodes are made under mu (a type may refer to itself: a CRD's
// JSONSchemaProps) and read without it once complete, from roots.
var keyNodes struct {
	mu    sync.Mutex
	made  map[reflect.Type]*keyNode
	roots sync.Map // reflect.Type → *keyNode
}

// keyNodeOf returns the node of type t.
func keyNodeOf(t reflect.Type) *keyNode {
	if n, ok := keyNodes.roots.Load(t); ok {
		return n.(*keyNode)
	}
	keyNodes.mu.Lock()
	defer keyNodes.mu.Unlock()
	if keyNodes.made == nil {
		keyNodes.made = map[reflect.Type]*keyNode{}
	}
	n := makeKeyNode(keyNodes.made, t)
	keyNodes.roots.Store(t, n)
	return n
}

// makeKeyNode makes the node of t and of the types it reads into,
// recording them in made. The caller holds keyNodes.mu.
func makeKeyNode(made map[reflect.Type]*keyNode, t reflect.Type) *keyNode {
	if n, ok := made[t]; ok {
		return n
	}
	n := &keyNode{}
	made[t] = n
	switch t.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Struct:
	default:
		return n
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return n
	}
	switch t.Kind() {
	case reflect.Pointer:
		n.reads, n.elem = readsPointer, makeKeyNode(made, t.Elem())
	case reflect.Map:
		n.reads, n.elem = readsMap, makeKeyNode(made, t.Elem())
	case reflect.Slice:
		n.reads, n.elem, n.bytes = readsSlice, makeKeyNode(made, t.Elem()), t.Elem().Kind() == reflect.Uint8
	case reflect.Struct:
		keys := map[string]reflect.Type{}
		if !addStructKeys(keys, t) {
			n.reads = readsUnsure
			return n
		}
		n.reads, n.fields = readsStruct, make(map[string]*keyNode, len(keys))
		for k, ft := range keys {
			n.fields[k] = makeKeyNode(made, ft)
		}
	}
	return n
}

// known reports whether the JSON value v, read into n's type, has no key
// that the converter reports as an unknown field; false also where the
// walk is unsure (a shape it does not follow: the validating converter
// decides).
func (n *keyNode) known(v any) bool {
	if v == nil {
		return true
	}
	switch n.reads {
	case readsAny:
		return true
	case readsPointer:
		return n.elem.known(v)
	case readsMap:
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for _, x := range m {
			if !n.elem.known(x) {
				return false
			}
		}
		return true
	case readsSlice:
		if _, ok := v.(string); ok && n.bytes {
			return true // a []byte, as a base64 string
		}
		s, ok := v.([]any)
		if !ok {
			return false
		}
		for _, x := range s {
			if !n.elem.known(x) {
				return false
			}
		}
		return true
	case readsStruct:
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for k, x := range m {
			f, ok := n.fields[k]
			if !ok || !f.known(x) {
				return false
			}
		}
		return true
	}
	return false
}

// addStructKeys adds the keys the converter matches to the fields of
// struct type t to keys, with their fields' types, those of inlined
// structs included, named as its fieldInfoFromField names them; false
// when the walk would be unsure of them: an unexported field (the
// converter fails on it), a name twice, an inlined field that is not a
// plain struct, a tag's "embed" (which newer Go versions inline).
func addStructKeys(keys map[string]reflect.Type, t reflect.Type) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _ := f.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if !f.IsExported() || slices.Contains(strings.Split(opts, ","), "embed") {
			return false
		}
		if name == "" && !f.Anonymous {
			name = f.Name
		}
		if name == "" { // inlined: its keys are the parent's
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() != reflect.Struct || reflect.PointerTo(ft).Implements(jsonUnmarshaler) || !addStructKeys(keys, ft) {
				return false
			}
			continue
		}
		if _, twice := keys[name]; twice {
			return false
		}
		keys[name] = f.Type
	}
	return true
}
