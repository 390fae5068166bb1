package sweeps

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Status returns obj's status as unstructured, with what differs from
// run to run masked (see MaskVolatile); nil when it has none.
func Status(obj runtime.Object) any {
	if u, ok := obj.(runtime.Unstructured); ok {
		return MaskVolatile(runtime.DeepCopyJSONValue(u.UnstructuredContent()["status"]))
	}
	// A typed object's status field alone is converted, not the whole
	// object: the sweep reads every object's status after every lagged
	// run, and the spec and metadata are most of an object.
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return statusOfWhole(obj)
	}
	field, ok := statusFieldOf(v.Elem().Type())
	switch {
	case !ok:
		return statusOfWhole(obj)
	case field == nil: // the type has no status
		return nil
	}
	status := v.Elem().FieldByIndex(field)
	if status.Kind() == reflect.Struct {
		status = status.Addr()
	} else if status.IsNil() {
		return nil
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(status.Interface())
	if err != nil {
		return nil
	}
	return MaskVolatile(u)
}

// SameStatus reports whether a and b, objects of one type, hold statuses
// that are deeply equal as they are, before MaskVolatile: Status then
// gives the same for both, and need not convert either. False says
// nothing: their statuses may still differ only in what Status masks.
func SameStatus(a, b runtime.Object) bool {
	if ua, ok := a.(runtime.Unstructured); ok {
		ub, ok := b.(runtime.Unstructured)
		return ok && reflect.DeepEqual(ua.UnstructuredContent()["status"], ub.UnstructuredContent()["status"])
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() || va.Kind() != reflect.Pointer || va.IsNil() || vb.IsNil() || va.Elem().Kind() != reflect.Struct {
		return false
	}
	field, ok := statusFieldOf(va.Elem().Type())
	switch {
	case !ok:
		return false
	case field == nil: // the type has no status
		return true
	}
	// Pointers to the two fields: DeepEqual compares what they point to,
	// and boxing a pointer copies no status.
	return reflect.DeepEqual(va.Elem().FieldByIndex(field).Addr().Interface(), vb.Elem().FieldByIndex(field).Addr().Interface())
}

// statusFields caches statusFieldOf.
var statusFields sync.Map // reflect.Type → statusField

type statusField struct {
	index []int
	ok    bool
}

// statusFieldOf returns the index of the field of struct type t that is
// its json "status", a struct or a pointer to one; nil when t has none.
// ok is false when Status cannot tell without the conversion of the whole
// object: a status of another kind, or an embedded struct other than
// metav1's TypeMeta and ObjectMeta, which could hold it.
func statusFieldOf(t reflect.Type) ([]int, bool) {
	if f, ok := statusFields.Load(t); ok {
		return f.(statusField).index, f.(statusField).ok
	}
	f := statusField{ok: true}
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type != typeMeta && sf.Type != objectMeta {
			f = statusField{}
			break
		}
		if name, _, _ := strings.Cut(sf.Tag.Get("json"), ","); name != "status" {
			continue
		}
		if k := sf.Type.Kind(); k == reflect.Struct || k == reflect.Pointer && sf.Type.Elem().Kind() == reflect.Struct {
			f.index = sf.Index
		} else {
			f.ok = false
		}
	}
	statusFields.Store(t, f)
	return f.index, f.ok
}

var (
	typeMeta   = reflect.TypeFor[metav1.TypeMeta]()
	objectMeta = reflect.TypeFor[metav1.ObjectMeta]()
)

// statusOfWhole is Status by the conversion of the whole object.
func statusOfWhole(obj runtime.Object) any {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	return MaskVolatile(u["status"])
}

// StatusDiff names the fields of two statuses that differ: "replicas is
// 0 (without the lag: 1)".
func StatusDiff(without, with any) string {
	a, b := map[string]any{}, map[string]any{}
	flatten("status", without, a)
	flatten("status", with, b)
	paths := map[string]bool{}
	for p := range a {
		paths[p] = true
	}
	for p := range b {
		paths[p] = true
	}
	var out []string
	for p := range paths {
		va, okA := a[p]
		vb, okB := b[p]
		if okA && okB && reflect.DeepEqual(va, vb) {
			continue
		}
		show := func(v any, ok bool) string {
			if !ok {
				return "absent"
			}
			return fmt.Sprintf("%v", v)
		}
		out = append(out, fmt.Sprintf("%s is %s (without the lag: %s)", p, show(vb, okB), show(va, okA)))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// flatten adds the leaves of v, an unstructured value at path, to out.
func flatten(path string, v any, out map[string]any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			flatten(path+"."+k, x, out)
		}
	case []any:
		for i, x := range v {
			flatten(fmt.Sprintf("%s[%d]", path, i), x, out)
		}
	case nil:
	default:
		out[path] = v
	}
}

// VolatileSet stands for a value of a compared status that counts only as
// set.
const VolatileSet = "<set>"

// MaskVolatile leaves out of a status, or replaces by VolatileSet, what
// differs between two correct runs of one row: conditions and
// observedGeneration, which tell the way the controller came (a
// Deployment's Progressing condition says whether its sync created the
// ReplicaSet or found it; another writer's annotation is a new generation
// of a Deployment), times (strings in RFC 3339; a controller stamps them
// with the time of the sync) and the uid and resourceVersion of an object
// reference (a CronJob's status.active: the run's other writes move the
// resourceVersions on). What is left is what the status counts and lists.
func MaskVolatile(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == "conditions" || k == "observedGeneration" {
				delete(v, k)
				continue
			}
			if (k == "resourceVersion" || k == "uid") && x != "" {
				v[k] = VolatileSet
				continue
			}
			v[k] = MaskVolatile(x)
		}
	case []any:
		for i, x := range v {
			v[i] = MaskVolatile(x)
		}
	case string:
		if _, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return VolatileSet
		}
	}
	return v
}
