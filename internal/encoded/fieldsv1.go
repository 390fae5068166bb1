package encoded

import (
	"reflect"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// ToUnstructured is runtime.DefaultUnstructuredConverter.ToUnstructured,
// with the fieldsV1 of the managed fields converted once per distinct
// value: the converter decodes each from its JSON (a third of the cost
// of a Deployment with one entry), and an object keeps its entries from
// write to write. The object is converted without them (a shallow copy
// whose entries have no fieldsV1), then each entry gets what the
// converter gives its fieldsV1 (value.TypeReflectCacheEntry.ToUnstructured,
// which it calls), a copy of the remembered one. Anything unexpected, and
// an error, is the converter's to answer on the whole object.
func (m *FieldsV1Memo) ToUnstructured(obj runtime.Object) (map[string]any, error) {
	v := reflect.ValueOf(obj)
	om, err := meta.Accessor(obj)
	if err != nil || v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	}
	mf := om.GetManagedFields()
	if !slices.ContainsFunc(mf, func(e metav1.ManagedFieldsEntry) bool { return e.FieldsV1 != nil }) {
		return runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	}
	if u, ok := m.withFieldsV1(v, mf); ok {
		return u, nil
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
}

// withFieldsV1 is toUnstructured's conversion of the object v points to,
// whose managed fields are mf; false when it fails.
func (memo *FieldsV1Memo) withFieldsV1(v reflect.Value, mf []metav1.ManagedFieldsEntry) (map[string]any, bool) {
	shallow := reflect.New(v.Elem().Type())
	shallow.Elem().Set(v.Elem())
	sm, err := meta.Accessor(shallow.Interface())
	if err != nil {
		return nil, false
	}
	without := slices.Clone(mf)
	for i := range without {
		without[i].FieldsV1 = nil
	}
	sm.SetManagedFields(without)
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(shallow.Interface())
	if err != nil {
		return nil, false
	}
	md, _ := m["metadata"].(map[string]any)
	entries, _ := md["managedFields"].([]any)
	if len(entries) != len(mf) {
		return nil, false
	}
	for i := range mf {
		if mf[i].FieldsV1 == nil {
			continue
		}
		entry, ok := entries[i].(map[string]any)
		f, err := memo.unstructured(mf[i].FieldsV1)
		if !ok || err != nil {
			return nil, false
		}
		entry["fieldsV1"] = f
	}
	return m, true
}

// FieldsV1Memo remembers the unstructured form of fieldsV1 values by their
// content, which alone decides it. It is bounded: once full it starts
// over.
type FieldsV1Memo struct {
	mu    sync.Mutex
	byRaw map[string]any
}

// fieldsV1Memos bounds a memo: a test holds few distinct sets of fields.
const fieldsV1Memos = 512

var fieldsV1Type = reflect.TypeFor[metav1.FieldsV1]()

// unstructured returns what the converter makes of f: a copy of the
// remembered value.
func (m *FieldsV1Memo) unstructured(f *metav1.FieldsV1) (any, error) {
	// String, not GetRawString: client-go 1.35's FieldsV1 has no
	// GetRawString (1.36 added it); String is the raw content on all.
	key := f.String()
	m.mu.Lock()
	v, ok := m.byRaw[key]
	m.mu.Unlock()
	if ok {
		return runtime.DeepCopyJSONValue(v), nil
	}
	v, err := value.TypeReflectEntryOf(fieldsV1Type).ToUnstructured(reflect.ValueOf(f).Elem())
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byRaw == nil || len(m.byRaw) >= fieldsV1Memos {
		m.byRaw = map[string]any{}
	}
	m.byRaw[key] = v
	return runtime.DeepCopyJSONValue(v), nil
}
