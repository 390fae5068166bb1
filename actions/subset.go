package actions

import (
	"reflect"
	"strings"
	"sync"

	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// typedSubsetEqual reports, without converting either object to
// unstructured, that got matches want under Subset: it walks both typed
// values as runtime.DefaultUnstructuredConverter would render them (json
// names, inlined fields, custom converters) and checks what trimZero keeps
// of want against what prune keeps of got, with docsEqual's rules. It is a
// shortcut: true only when the unstructured comparison would find no
// difference; false means "not known", and the caller compares the
// unstructured forms (which also renders the diff). want and got are of
// one type.
func (c *config) typedSubsetEqual(want, got any) bool {
	return c.subsetEqual(reflect.ValueOf(want), reflect.ValueOf(got), "", false)
}

// subsetEqual compares w with g, of one type, where w is not trimmed to
// nothing. name is the json name w has in its parent (a field's or a map
// key's), inConditions whether a "conditions" key lies above it.
func (c *config) subsetEqual(w, g reflect.Value, name string, inConditions bool) bool {
	if w.Type() != g.Type() {
		return false
	}
	if !predeclaredScalar(w.Type()) {
		if ti := infoOf(w.Type()); ti.converts {
			return c.convertedEqual(ti, w, g, name, inConditions)
		}
	}
	switch w.Kind() {
	case reflect.String:
		return w.String() == g.String()
	case reflect.Bool:
		return w.Bool() == g.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return w.Int() == g.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return w.Uint() == g.Uint()
	case reflect.Float32, reflect.Float64:
		return w.Float() == g.Float()
	case reflect.Pointer:
		if g.IsNil() {
			return false
		}
		return c.subsetEqual(w.Elem(), g.Elem(), name, inConditions)
	case reflect.Slice:
		if w.Type().Elem().Kind() == reflect.Uint8 {
			return string(w.Bytes()) == string(g.Bytes())
		}
		if w.Len() != g.Len() {
			return false
		}
		for i := range w.Len() {
			if we := w.Index(i); !trimmedZero(we) && !c.subsetEqual(we, g.Index(i), name, inConditions) {
				return false
			}
		}
		return true
	case reflect.Map:
		if w.Type().Key().Kind() != reflect.String {
			return false
		}
		iter := w.MapRange()
		for iter.Next() {
			if trimmedZero(iter.Value()) {
				continue
			}
			k := iter.Key().String()
			gv := g.MapIndex(iter.Key())
			if !gv.IsValid() || !c.subsetEqual(iter.Value(), gv, k, inConditions || name == "conditions") {
				return false
			}
		}
		return true
	case reflect.Struct:
		return c.structSubsetEqual(w, g, name, inConditions)
	}
	// Interfaces and the rest: not known.
	return false
}

// structSubsetEqual compares the fields of two structs of one type, as
// subsetEqual; an inlined field's fields count as the struct's own.
func (c *config) structSubsetEqual(w, g reflect.Value, name string, inConditions bool) bool {
	below := inConditions || name == "conditions"
	for i, f := range infoOf(w.Type()).fields {
		if f.skip {
			continue
		}
		if f.unknown {
			return false
		}
		wf, gf := w.Field(i), g.Field(i)
		if f.inline {
			if wf.Kind() == reflect.Pointer {
				if wf.IsNil() {
					continue
				}
				if gf.IsNil() {
					return false
				}
				wf, gf = wf.Elem(), gf.Elem()
			}
			if wf.Kind() != reflect.Struct || infoOf(wf.Type()).converts ||
				!c.structSubsetEqual(wf, gf, name, inConditions) {
				return false
			}
			continue
		}
		if trimmedZero(wf) {
			continue
		}
		if !c.keepConditionTimes && below && conditionTimeFields[f.name] {
			if !c.timeSetEqual(wf, gf) {
				return false
			}
			continue
		}
		if !c.subsetEqual(wf, gf, f.name, below) {
			return false
		}
	}
	return true
}

// timeSetEqual is docsEqual's rule for a condition's timestamp: only set
// or not counts. w is set (not trimmed).
func (c *config) timeSetEqual(w, g reflect.Value) bool {
	if g.Kind() == reflect.Pointer {
		if g.IsNil() {
			return false
		}
		g = g.Elem()
	}
	if ti := infoOf(g.Type()); ti.converts {
		if g.IsZero() {
			return !ti.zeroTrims
		}
		gu, err := ti.entry.ToUnstructured(g)
		return err == nil && isSetTime(trimZero(gu))
	}
	if g.Kind() == reflect.String {
		return g.Len() > 0
	}
	// Not known.
	return false
}

// convertedEqual compares values of a type with its own conversion to
// unstructured (a time, a quantity, an int-or-string) as the unstructured
// comparison does, converting them only when they differ.
func (c *config) convertedEqual(ti *typeInfo, w, g reflect.Value, name string, inConditions bool) bool {
	if w.CanInterface() && g.CanInterface() && reflect.DeepEqual(w.Interface(), g.Interface()) {
		return true // and w is not trimmed: the forms are equal
	}
	wu, err1 := ti.entry.ToUnstructured(w)
	gu, err2 := ti.entry.ToUnstructured(g)
	if err1 != nil || err2 != nil {
		return false
	}
	wt := trimZero(wu)
	if wt == nil {
		return true
	}
	return docsEqual(wt, prune(wt, gu), c.keepConditionTimes, inConditions || name == "conditions")
}

// trimmedZero reports whether trimZero drops v's unstructured form: a
// null, a zero scalar, an empty list, or a map or struct with nothing but
// such values. A value with its own conversion is converted.
func trimmedZero(v reflect.Value) bool {
	if !predeclaredScalar(v.Type()) {
		if ti := infoOf(v.Type()); ti.converts {
			// A value other than the zero one counts as set: where it is
			// not (an int-or-string holding ""), the comparison that
			// follows converts it.
			return ti.zeroTrims && v.IsZero()
		}
	}
	switch v.Kind() {
	case reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil() || trimmedZero(v.Elem())
	case reflect.Slice:
		return v.Len() == 0
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if !trimmedZero(iter.Value()) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i, f := range infoOf(v.Type()).fields {
			if f.unknown || !f.skip && !trimmedZero(v.Field(i)) {
				return false
			}
		}
		return true
	}
	return false
}

// predeclaredScalar reports whether t is one of Go's predeclared string,
// boolean and numeric types, which have no methods, so no conversion of
// their own: most fields of API types are, and the walk then needs no
// look-up of their typeInfo.
func predeclaredScalar(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return t.PkgPath() == ""
	}
	return false
}

// typeInfo is what the walk needs to know of a type, computed once.
type typeInfo struct {
	// converts: the type has its own conversion to unstructured (a time,
	// a quantity, an int-or-string).
	converts bool
	entry    *value.TypeReflectCacheEntry
	// zeroTrims: the zero value of a converting type is dropped by
	// trimZero (a zero time renders as null; a zero quantity as "0").
	zeroTrims bool
	// fields of a struct, as the converter names them.
	fields []fieldInfo
}

var typeInfos sync.Map // reflect.Type → *typeInfo

func infoOf(t reflect.Type) *typeInfo {
	if ti, ok := typeInfos.Load(t); ok {
		return ti.(*typeInfo)
	}
	ti := &typeInfo{entry: value.TypeReflectEntryOf(t)}
	if ti.converts = ti.entry.CanConvertToUnstructured(); ti.converts {
		u, err := ti.entry.ToUnstructured(reflect.Zero(t))
		ti.zeroTrims = err == nil && trimZero(u) == nil
	} else if t.Kind() == reflect.Struct {
		ti.fields = make([]fieldInfo, t.NumField())
		for i := range ti.fields {
			ti.fields[i] = jsonField(t, i)
		}
	}
	typeInfos.Store(t, ti)
	return ti
}

// fieldInfo is how the unstructured converter names a struct field.
type fieldInfo struct {
	name string
	skip bool // json:"-"
	// unknown: an unexported field, which this shortcut does not read.
	unknown bool
	inline  bool // an anonymous field without a name: rendered into its parent
}

// jsonField names field i of t as runtime.DefaultUnstructuredConverter
// does (fieldInfoFromField, for the Go versions go.mod allows, which
// ignore ",inline"): the json tag's name, else the Go name; an anonymous
// field without a name is inlined.
func jsonField(t reflect.Type, i int) fieldInfo {
	sf := t.Field(i)
	if !sf.IsExported() {
		return fieldInfo{unknown: true}
	}
	name := sf.Tag.Get("json")
	if i := strings.IndexByte(name, ','); i >= 0 {
		name = name[:i]
	}
	switch {
	case name == "-":
		return fieldInfo{skip: true}
	case name != "":
		return fieldInfo{name: name}
	case sf.Anonymous:
		return fieldInfo{inline: true}
	}
	return fieldInfo{name: sf.Name}
}
