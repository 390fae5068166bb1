package apiserver

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/internal/encoded"
)

// ServerTimes makes the times of obj what kube-apiserver holds (see
// encoded.ServerTimes). obj is changed: pass a copy.
func ServerTimes(obj runtime.Object) { encoded.ServerTimes(obj) }

// coerceCustomMetadata makes a custom resource's metadata what
// apiextensions-apiserver stores: its unstructuredSchemaCoercer decodes
// the metadata of every custom resource it reads (requests and storage)
// into a metav1.ObjectMeta and writes it back
// (schemaobjectmeta.GetObjectMeta, then SetObjectMeta, through
// runtime.DefaultUnstructuredConverter), so empty lists and maps
// (`finalizers: []`) and unknown fields are dropped and times are to the
// second. A typed custom resource's ObjectMeta gets the same: empty lists
// and maps are nil (its times are ServerTimes'). obj is changed.
func coerceCustomMetadata(obj runtime.Object) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		md, ok := u.Object["metadata"].(map[string]any)
		if !ok || coercedMetadata(md) {
			return
		}
		om := &metav1.ObjectMeta{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(md, om); err != nil {
			return // malformed: the model's own checks answer it
		}
		out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(om)
		if err != nil {
			return
		}
		u.Object["metadata"] = out
		return
	}
	om, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	if fs := om.GetFinalizers(); fs != nil && len(fs) == 0 {
		om.SetFinalizers(nil)
	}
	if l := om.GetLabels(); l != nil && len(l) == 0 {
		om.SetLabels(nil)
	}
	if a := om.GetAnnotations(); a != nil && len(a) == 0 {
		om.SetAnnotations(nil)
	}
	if refs := om.GetOwnerReferences(); refs != nil && len(refs) == 0 {
		om.SetOwnerReferences(nil)
	}
	if mf := om.GetManagedFields(); mf != nil && len(mf) == 0 {
		om.SetManagedFields(nil)
	}
}

// serverForm makes obj, about to be stored in r, what the server would
// store: a custom resource's metadata coerced (coerceCustomMetadata), a
// Secret's stringData merged into its data (mergeStringData), and
// times to the server's precision (ServerTimes). obj is changed.
func serverForm(r *Resource, obj runtime.Object) {
	if r.Custom {
		coerceCustomMetadata(obj)
	}
	if s, ok := obj.(*corev1.Secret); ok {
		mergeStringData(s)
	}
	ServerTimes(obj)
}

// mergeStringData is the conversion kube-apiserver decodes a Secret with
// (Convert_v1_Secret_To_core_Secret): stringData, write-only, overwrites
// data's keys and is never stored (the internal type has no such field).
func mergeStringData(s *corev1.Secret) {
	if s.StringData == nil {
		return
	}
	if len(s.StringData) > 0 && s.Data == nil {
		s.Data = make(map[string][]byte, len(s.StringData))
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
}

// coercedMetadata reports whether a custom resource's metadata is what
// coerceCustomMetadata would make of it already (most are: the model
// stores them so), without converting it: each key is a field of
// ObjectMeta whose value is of its JSON type, not empty (ObjectMeta's
// fields are omitempty) and, for times, in the converter's RFC 3339 form.
// It may say false of metadata that is coerced already (the conversion
// then runs and changes nothing), never true of one that is not.
func coercedMetadata(md map[string]any) bool {
	for k, v := range md {
		ok := false
		switch k {
		case "name", "generateName", "namespace", "uid", "resourceVersion", "selfLink":
			ok = nonEmptyString(v)
		case "generation", "deletionGracePeriodSeconds":
			n, isInt := v.(int64)
			ok = isInt && (n != 0 || k == "deletionGracePeriodSeconds")
		case "creationTimestamp", "deletionTimestamp":
			ok = canonicalTime(v)
		case "labels", "annotations":
			m, isMap := v.(map[string]any)
			ok = isMap && len(m) > 0
			for _, x := range m {
				if _, isString := x.(string); !isString {
					return false
				}
			}
		case "finalizers":
			l, isList := v.([]any)
			ok = isList && len(l) > 0
			for _, x := range l {
				if _, isString := x.(string); !isString {
					return false
				}
			}
		case "ownerReferences":
			l, isList := v.([]any)
			ok = isList && len(l) > 0
			for _, x := range l {
				if !coercedOwnerReference(x) {
					return false
				}
			}
		case "managedFields":
			l, isList := v.([]any)
			ok = isList && len(l) > 0
			for _, x := range l {
				if !coercedManagedFieldsEntry(x) {
					return false
				}
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// coercedManagedFieldsEntry is coercedMetadata for an entry of
// managedFields.
func coercedManagedFieldsEntry(x any) bool {
	e, ok := x.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range e {
		switch k {
		case "manager", "operation", "apiVersion", "fieldsType", "subresource":
			ok = nonEmptyString(v)
		case "time":
			ok = canonicalTime(v)
		case "fieldsV1":
			// A FieldsV1 is its JSON, a tree of objects: as decoded.
			_, ok = v.(map[string]any)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
	return true
}

// coercedOwnerReference is coercedMetadata for an owner reference,
// whose apiVersion, kind, name and uid are always written.
func coercedOwnerReference(x any) bool {
	r, ok := x.(map[string]any)
	if !ok {
		return false
	}
	required := 0
	for k, v := range r {
		switch k {
		case "apiVersion", "kind", "name", "uid":
			_, ok = v.(string)
			required++
		case "controller", "blockOwnerDeletion":
			_, ok = v.(bool)
		default:
			ok = false
		}
		if !ok {
			return false
		}
	}
	return required == 4
}

func nonEmptyString(v any) bool {
	s, ok := v.(string)
	return ok && s != ""
}

// canonicalTime reports whether v is a time as the converter writes a
// metav1.Time: RFC 3339 in UTC, to the second.
func canonicalTime(v any) bool {
	s, ok := v.(string)
	if !ok || len(s) != len("2006-01-02T15:04:05Z") || s[len(s)-1] != 'Z' {
		return false
	}
	t, err := time.Parse(time.RFC3339, s)
	var buf [len("2006-01-02T15:04:05Z")]byte
	return err == nil && string(t.UTC().AppendFormat(buf[:0], time.RFC3339)) == s
}
