package apiserver

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// BenchmarkCoerceCustomMetadata measures coerceCustomMetadata on the
// metadata of a custom resource as the model stores it (a copy per op,
// which BenchmarkCoerceCustomMetadata/copy measures alone).
func BenchmarkCoerceCustomMetadata(b *testing.B) {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "ns", "uid": "00000000-0000-4000-8000-000000000001", "resourceVersion": "12", "generation": int64(2),
			"creationTimestamp": "2026-01-01T00:00:00Z", "labels": map[string]any{"a": "b"}, "finalizers": []any{"x/y"},
			"managedFields": []any{map[string]any{"manager": "m", "operation": "Apply", "apiVersion": "example.com/v1", "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1",
				"fieldsV1": map[string]any{"f:metadata": map[string]any{"f:labels": map[string]any{"f:a": map[string]any{}}}, "f:spec": map[string]any{"f:size": map[string]any{}}}}}},
		"spec": map[string]any{"size": int64(1)}}}
	for _, name := range []string{"copy", "coerced", "empty finalizers"} {
		b.Run(name, func(b *testing.B) {
			in := u.DeepCopy()
			if name == "empty finalizers" {
				in.SetFinalizers([]string{})
			}
			b.ReportAllocs()
			for b.Loop() {
				c := in.DeepCopy()
				if name != "copy" {
					coerceCustomMetadata(c)
				}
			}
		})
	}
}
