package encoded

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Equal is the etcd3 store's no-op check: the object that would be stored
// encodes as the stored one does.
//
// A typed object encodes as the concatenation of its top-level fields
// (TypeMeta, ObjectMeta, Spec, Status, ...), so it is compared field by
// field, last first: writes mostly differ in the status or the spec, which
// come last. A field that reflect.DeepEqual finds equal encodes equally;
// one it finds different may still encode equally (a nil and an empty map,
// a quantity written two ways, times within the same second), which its
// encoding decides: the same way down, a struct's fields one by one and a
// slice's items one by one, so that only the values found different are
// encoded (the one changed container of a pod's spec, not the spec). An
// unstructured object encodes as its content, compared the same way (see
// contentEncodesEqual); another object that encodes itself is compared
// whole.
func Equal(obj, old runtime.Object) bool {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		if v, ok := old.(*unstructured.Unstructured); ok {
			return contentEncodesEqual(u.Object, v.Object)
		}
	}
	a, b := reflect.ValueOf(obj), reflect.ValueOf(old)
	if a.Type() != b.Type() || a.Kind() != reflect.Pointer || a.IsNil() || b.IsNil() {
		return reflect.DeepEqual(obj, old) || encodesEqual(obj, old)
	}
	fields := topLevelFields(a.Type().Elem())
	if fields == nil {
		return reflect.DeepEqual(obj, old) || encodesEqual(obj, old)
	}
	return fieldsEncodeEqual(a.Elem(), b.Elem(), fields)
}

// fieldsEncodeEqual reports whether structs a and b (addressable, of one
// type whose fields are fields) encode equally, last field first.
func fieldsEncodeEqual(a, b reflect.Value, fields []jsonField) bool {
	for i := len(fields) - 1; i >= 0; i-- {
		f := fields[i]
		fa, fb := a.Field(f.index), b.Field(f.index)
		if reflect.DeepEqual(fa.Addr().Interface(), fb.Addr().Interface()) {
			continue
		}
		switch ox, oy := f.omitted(fa), f.omitted(fb); {
		case ox && oy:
			continue
		case ox || oy:
			return false // in one encoding only
		}
		if !differentEncodeEqual(fa, fb) {
			return false
		}
	}
	return true
}

// differentEncodeEqual reports whether a and b (addressable, of one type,
// not deeply equal) encode equally. A struct's encoding is its fields' (see
// topLevelFields); a pointer's, its struct's; a slice's, its items' in
// order. Anything else (a nil pointer or slice, a map), and a type that
// encodes itself, is encoded.
func differentEncodeEqual(a, b reflect.Value) bool {
	t := a.Type()
	switch t.Kind() {
	case reflect.Struct:
		if fields := topLevelFields(t); fields != nil {
			return fieldsEncodeEqual(a, b, fields)
		}
	case reflect.Pointer:
		// A nil one is null, as may be what the other points to (a
		// RawExtension with no bytes): encoded.
		if !a.IsNil() && !b.IsNil() && t.Elem().Kind() == reflect.Struct {
			if fields := topLevelFields(t.Elem()); fields != nil {
				return fieldsEncodeEqual(a.Elem(), b.Elem(), fields)
			}
		}
	case reflect.Slice:
		// null and [] differ; []byte is a base64 string.
		if a.IsNil() != b.IsNil() || t.Elem().Kind() == reflect.Uint8 || encodesItself(t) {
			break
		}
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			x, y := a.Index(i), b.Index(i)
			if !reflect.DeepEqual(x.Addr().Interface(), y.Addr().Interface()) && !differentEncodeEqual(x, y) {
				return false
			}
		}
		return true
	}
	return encodesEqual(a.Addr().Interface(), b.Addr().Interface())
}

// contentEncodesEqual reports whether two JSON values of unstructured
// content encode equally: objects with the same keys key by key, arrays
// item by item, and the values found different encoded (an int64 and a
// float64 may encode alike; so may two strings, or keys, that are not
// UTF-8).
func contentEncodesEqual(x, y any) bool {
	switch x := x.(type) {
	case map[string]any:
		if y, ok := y.(map[string]any); ok && (x == nil) == (y == nil) && sameKeys(x, y) { // null and {} differ
			for k, vx := range x {
				if !contentEncodesEqual(vx, y[k]) {
					return false
				}
			}
			return true
		}
	case []any:
		if y, ok := y.([]any); ok && (x == nil) == (y == nil) {
			if len(x) != len(y) {
				return false
			}
			for i := range x {
				if !contentEncodesEqual(x[i], y[i]) {
					return false
				}
			}
			return true
		}
	}
	return reflect.DeepEqual(x, y) || encodesEqual(x, y)
}

// sameKeys reports whether x and y have the same keys.
func sameKeys(x, y map[string]any) bool {
	if len(x) != len(y) {
		return false
	}
	for k := range x {
		if _, ok := y[k]; !ok {
			return false
		}
	}
	return true
}

// encodesItself reports whether encoding/json encodes a value of type t
// with its own method (a value's or its pointer's MarshalJSON or
// MarshalText).
func encodesItself(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(marshalerType) || pt.Implements(marshalerType) ||
		t.Implements(textMarshalerType) || pt.Implements(textMarshalerType)
}

// encodesEqual reports whether a and b have the same JSON encoding.
func encodesEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// jsonField is a top-level field of a struct as encoding/json encodes it.
type jsonField struct {
	index               int
	omitEmpty, omitZero bool
}

// omitted reports whether encoding/json leaves v, the field's value, out.
func (f jsonField) omitted(v reflect.Value) bool {
	if f.omitZero {
		if z, ok := v.Addr().Interface().(interface{ IsZero() bool }); ok {
			if z.IsZero() {
				return true
			}
		} else if v.IsZero() {
			return true
		}
	}
	if !f.omitEmpty {
		return false
	}
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	fieldsByType      sync.Map // reflect.Type → []jsonField (nil: compare whole)
)

// topLevelFields returns the fields of struct type t that encoding/json
// encodes, in order; nil when t is not such a struct or encodes itself, or
// has a field whose encoding the fields alone would not tell (an unexported
// embedded struct, whose fields encoding/json promotes).
func topLevelFields(t reflect.Type) []jsonField {
	if v, ok := fieldsByType.Load(t); ok {
		return v.([]jsonField)
	}
	var fields []jsonField
	if t.Kind() == reflect.Struct && !encodesItself(t) {
		fields = []jsonField{}
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			if !sf.IsExported() {
				if sf.Anonymous {
					fields = nil
					break
				}
				continue
			}
			_, opts, _ := strings.Cut(tag, ",")
			f := jsonField{index: i}
			for o := range strings.SplitSeq(opts, ",") {
				switch o {
				case "omitempty":
					f.omitEmpty = true
				case "omitzero":
					f.omitZero = true
				}
			}
			fields = append(fields, f)
		}
	}
	fieldsByType.Store(t, fields)
	return fields
}
