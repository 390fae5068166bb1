package encoded

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

func newFieldsV1(raw string) *metav1.FieldsV1 {
	f := &metav1.FieldsV1{}
	if err := f.UnmarshalJSON([]byte(raw)); err != nil {
		panic(err)
	}
	return f
}

func describe(obj runtime.Object) string {
	m, _ := meta.Accessor(obj)
	return fmt.Sprintf("%T %s", obj, m.GetName())
}

// toUnstructured gives what the converter gives, managed fields
// included, on the first conversion and on those the memo answers; what
// the caller does with its result changes no later one.
func TestToUnstructuredRemembersFieldsV1(t *testing.T) {
	memo := &FieldsV1Memo{}
	at := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	fields := newFieldsV1
	objects := []runtime.Object{
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "none"}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "entries", ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: "a", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "apps/v1", Time: &at, FieldsType: "FieldsV1",
				FieldsV1: fields(`{"f:spec":{"f:replicas":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}}}}}`)},
			{Manager: "b", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status"},
			{Manager: "c", FieldsV1: fields(`{"f:metadata":{"f:labels":{".":{},"f:x":{}}}}`)},
			{Manager: "d", FieldsV1: &metav1.FieldsV1{}},
			{},
		}}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bad", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "a", FieldsV1: fields(`{not json`)}}}},
	}
	for round := range 3 {
		for _, obj := range objects {
			want, wantErr := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
			got, err := memo.ToUnstructured(obj)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("round %d, %s: error %v, want %v", round, describe(obj), err, wantErr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("round %d, %s: (-converter +toUnstructured):\n%s", round, describe(obj), diff)
			}
			// The caller owns the result.
			if entries, _, _ := unstructured.NestedSlice(got, "metadata", "managedFields"); len(entries) > 0 {
				if f, ok := got["metadata"].(map[string]any)["managedFields"].([]any)[0].(map[string]any)["fieldsV1"].(map[string]any); ok {
					f["f:changed"] = map[string]any{}
				}
			}
		}
	}
	if len(memo.byRaw) != 3 {
		t.Errorf("%d fieldsV1 remembered, want 3", len(memo.byRaw))
	}
}

// BenchmarkToUnstructured measures the dynamic client's conversion of a
// Deployment with one managed fields entry: the converter's and
// toUnstructured's.
func BenchmarkToUnstructured(b *testing.B) {
	memo := &FieldsV1Memo{}
	at := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}, CreationTimestamp: at,
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "a", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "apps/v1", Time: &at, FieldsType: "FieldsV1",
			FieldsV1: newFieldsV1(`{"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`)}}},
		Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}},
	}
	b.Run("converter", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("toUnstructured", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := memo.ToUnstructured(d); err != nil {
				b.Fatal(err)
			}
		}
	})
}
