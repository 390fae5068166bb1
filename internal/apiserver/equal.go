package apiserver

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
)

// equal is the etcd3 store's no-op check: the object that would be stored
// encodes as the stored one does.
//
// A typed object encodes as the concatenation of its top-level fields
// (TypeMeta, ObjectMeta, Spec, Status, ...), so it is compared field by
// field, last first: writes mostly differ in the status or the spec, which
// come last, and a field found different is encoded alone to confirm it.
// A field that reflect.DeepEqual finds equal encodes equally; one it finds
// different may still encode equally (a nil and an empty map, a quantity
// written two ways, times within the same second), which its encoding
// decides. An object that encodes itself (unstructured) is compared whole.
func equal(obj, old runtime.Object) bool {
	a, b := reflect.ValueOf(obj), reflect.ValueOf(old)
	if a.Type() != b.Type() || a.Kind() != reflect.Pointer || a.IsNil() || b.IsNil() {
		return reflect.DeepEqual(obj, old) || encodesEqual(obj, old)
	}
	fields := topLevelFields(a.Type().Elem())
	if fields == nil {
		return reflect.DeepEqual(obj, old) || encodesEqual(obj, old)
	}
	a, b = a.Elem(), b.Elem()
	for i := len(fields) - 1; i >= 0; i-- {
		f := fields[i]
		fa, fb := a.Field(f.index), b.Field(f.index)
		x, y := fa.Addr().Interface(), fb.Addr().Interface()
		if reflect.DeepEqual(x, y) {
			continue
		}
		switch ox, oy := f.omitted(fa), f.omitted(fb); {
		case ox && oy:
			continue
		case ox || oy:
			return false // in one encoding only
		}
		if !encodesEqual(x, y) {
			return false
		}
	}
	return true
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
	marshalerType = reflect.TypeFor[json.Marshaler]()
	fieldsByType  sync.Map // reflect.Type → []jsonField (nil: compare whole)
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
	if t.Kind() == reflect.Struct && !t.Implements(marshalerType) && !reflect.PointerTo(t).Implements(marshalerType) {
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
