package encoded

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// equal is the store's no-op check: it must say what comparing the two
// whole encodings says, on the cases where reflect.DeepEqual and the
// encoding disagree and on real differences in each top-level field.
func TestEqualIsEncodingEquality(t *testing.T) {
	deployment := func(edit func(*appsv1.Deployment)) runtime.Object {
		d := &appsv1.Deployment{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](2),
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "web", Image: "nginx",
					Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
				}}}},
			},
			Status: appsv1.DeploymentStatus{Replicas: 2},
		}
		if edit != nil {
			edit(d)
		}
		return d
	}
	configMap := func(edit func(*corev1.ConfigMap)) runtime.Object {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "default"}}
		edit(cm)
		return cm
	}
	at := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		a, b runtime.Object
		want bool
	}{
		{"the same object", deployment(nil), deployment(nil), true},
		{"the status differs", deployment(nil), deployment(func(d *appsv1.Deployment) { d.Status.Replicas = 3 }), false},
		{"the spec differs", deployment(nil), deployment(func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](3) }), false},
		{"the metadata differs", deployment(nil), deployment(func(d *appsv1.Deployment) { d.Labels["tier"] = "front" }), false},
		{"the kind differs", deployment(nil), deployment(func(d *appsv1.Deployment) { d.Kind = "" }), false},
		{"no labels and empty labels", deployment(func(d *appsv1.Deployment) { d.Labels = nil }), deployment(func(d *appsv1.Deployment) { d.Labels = map[string]string{} }), true},
		{"a quantity written two ways", deployment(nil), deployment(func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU] = resource.MustParse("1000m")
		}), true},
		{"times within the same second", deployment(func(d *appsv1.Deployment) { d.CreationTimestamp = metav1.NewTime(at) }),
			deployment(func(d *appsv1.Deployment) { d.CreationTimestamp = metav1.NewTime(at.Add(time.Millisecond)) }), true},
		{"a spec and a status change", deployment(nil), deployment(func(d *appsv1.Deployment) {
			d.Spec.Paused = true
			d.Status.Replicas = 3
		}), false},
		{"a top-level map: nil and empty", configMap(func(cm *corev1.ConfigMap) {}), configMap(func(cm *corev1.ConfigMap) { cm.Data = map[string]string{} }), true},
		{"a top-level map: nil and set", configMap(func(cm *corev1.ConfigMap) {}), configMap(func(cm *corev1.ConfigMap) { cm.Data = map[string]string{"a": "b"} }), false},
		{"a top-level pointer: nil and false", configMap(func(cm *corev1.ConfigMap) {}), configMap(func(cm *corev1.ConfigMap) { cm.Immutable = ptr.To(false) }), false},
		{"unstructured, equal", &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"a": int64(1)}}},
			&unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"a": int64(1)}}}, true},
		{"unstructured, different", &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"a": int64(1)}}},
			&unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"a": int64(2)}}}, false},
		{"different types", deployment(nil), configMap(func(*corev1.ConfigMap) {}), false},
		{"unstructured, an integer and a float", &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"a": int64(1), "l": []any{"x", int64(2)}}}},
			&unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"a": float64(1), "l": []any{"x", float64(2)}}}}, true},
		{"unstructured, a nested null and {}", &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"m": map[string]any(nil)}}},
			&unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"m": map[string]any{}}}}, false},
		{"unstructured, a null and a missing key", &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"m": nil}}},
			&unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}, false},
		{"unstructured, one more item", &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"l": []any{"x"}}}},
			&unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"l": []any{"x", "y"}}}}, false},
		{"unstructured, an item differs", &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"l": []any{"x", map[string]any{"a": "b"}}}}},
			&unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"l": []any{"x", map[string]any{"a": "c"}}}}}, false},
		{"unstructured, two strings that are not UTF-8", &unstructured.Unstructured{Object: map[string]any{"s": "\xff"}},
			&unstructured.Unstructured{Object: map[string]any{"s": "\xfe"}}, true},
		{"unstructured, two keys that are not UTF-8", &unstructured.Unstructured{Object: map[string]any{"\xff": "v"}},
			&unstructured.Unstructured{Object: map[string]any{"\xfe": "v"}}, true},
		{"unstructured, one more key", &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"a": "b"}}},
			&unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"a": "b", "c": "d"}}}, false},
		{"unstructured, no content and empty content", &unstructured.Unstructured{}, &unstructured.Unstructured{Object: map[string]any{}}, false},
		// Down the spec: a struct's fields, a pointer's struct, a slice's items.
		{"a nested quantity written two ways and a nested time", deployment(func(d *appsv1.Deployment) {
			d.Spec.Template.CreationTimestamp = metav1.NewTime(at)
		}), deployment(func(d *appsv1.Deployment) {
			d.Spec.Template.CreationTimestamp = metav1.NewTime(at.Add(time.Millisecond))
			d.Spec.Template.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU] = resource.MustParse("1000m")
		}), true},
		{"a nested slice: nil and empty", deployment(nil), deployment(func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Args = []string{}
		}), true},
		{"a nested slice without omitempty: nil and empty", deployment(func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers = nil
		}), deployment(func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers = []corev1.Container{}
		}), false},
		{"a nested pointer: nil and set", deployment(nil), deployment(func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{}
		}), false},
		{"one more item", deployment(nil), deployment(func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "side"})
		}), false},
		{"an item differs", deployment(nil), deployment(func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Image = "httpd"
		}), false},
		{"managed fields: a time within the same second", deployment(func(d *appsv1.Deployment) {
			d.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "a", Time: ptr.To(metav1.NewTime(at))}}
		}), deployment(func(d *appsv1.Deployment) {
			d.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "a", Time: ptr.To(metav1.NewTime(at.Add(time.Millisecond)))}}
		}), true},
		{"managed fields: nil and set time", deployment(func(d *appsv1.Deployment) {
			d.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "a"}}
		}), deployment(func(d *appsv1.Deployment) {
			d.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "a", Time: ptr.To(metav1.NewTime(at))}}
		}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err1 := json.Marshal(tt.a)
			y, err2 := json.Marshal(tt.b)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			if encoded := bytes.Equal(x, y); encoded != tt.want {
				t.Fatalf("the case is wrong: the encodings are equal: %v\n%s\n%s", encoded, x, y)
			}
			if got := Equal(tt.a, tt.b); got != tt.want {
				t.Errorf("equal = %v, want %v", got, tt.want)
			}
			if got := Equal(tt.b, tt.a); got != tt.want {
				t.Errorf("equal, swapped = %v, want %v", got, tt.want)
			}
		})
	}
}

// BenchmarkEqual measures the no-op check on a status update that changes
// the status (the common write of a sync) and on one that changes nothing.
func BenchmarkEqual(b *testing.B) {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](2), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}},
	}
	changed := d.DeepCopy()
	changed.Status.Replicas = 2
	for _, c := range []struct {
		name string
		obj  runtime.Object
	}{{"changed-status", changed}, {"unchanged", d.DeepCopy()}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Equal(c.obj, d)
			}
		})
	}
}
