package sweeps

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestSpecField(t *testing.T) {
	replicas := func(n int32) *appsv1.Deployment {
		return &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &n, MinReadySeconds: 5, Paused: true}}
	}
	custom := func(spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "x/v1", "kind": "W", "spec": spec}}
	}
	for _, tt := range []struct {
		name          string
		seed, settled runtime.Object
		want          string // path=from->to, "" for none
	}{
		{"replicas first", replicas(1), replicas(1), "spec.replicas=1->2"},
		// The controller scaled it: the next field by name.
		{"replicas written", replicas(1), replicas(3), "spec.minReadySeconds=5->6"},
		{"a boolean flipped", &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Paused: true}}, &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Paused: true}}, "spec.paused=true->false"},
		// JSON numbers of a custom resource may be floats.
		{"a custom resource", custom(map[string]any{"size": float64(3), "name": "x"}), custom(map[string]any{"size": float64(3), "name": "x"}), "spec.size=3->4"},
		{"strings only", custom(map[string]any{"name": "x"}), custom(map[string]any{"name": "x"}), ""},
		{"no spec", &corev1.ConfigMap{}, &corev1.ConfigMap{}, ""},
		{"deleted in the run without lag", replicas(1), nil, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := SpecField(tt.seed, tt.settled)
			got := ""
			if ok {
				got = f.String() + "=" + fmtAny(f.From) + "->" + fmtAny(f.To)
			}
			if got != tt.want {
				t.Fatalf("SpecField = %q; want %q", got, tt.want)
			}
			if !ok {
				return
			}
			obj := tt.seed.DeepCopyObject()
			if f.Holds(obj) {
				t.Errorf("the seed holds the changed value already")
			}
			if err := f.Set(obj); err != nil {
				t.Fatal(err)
			}
			if !f.Holds(obj) {
				t.Errorf("after Set the object does not hold %v: %#v", f.To, obj)
			}
		})
	}
}

func fmtAny(v any) string {
	switch v := v.(type) {
	case bool:
		if v {
			return "true"
		}
		return "false"
	case int64:
		return itoa(v)
	case float64:
		return itoa(int64(v))
	}
	return "?"
}

func itoa(n int64) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func TestStatusField(t *testing.T) {
	d := &appsv1.Deployment{Status: appsv1.DeploymentStatus{ReadyReplicas: 1, ObservedGeneration: 3}}
	settled := d.DeepCopy()
	settled.Status.ObservedGeneration = 4 // the controller's
	f, ok := StatusField(d, settled)
	if !ok || f.String() != "status.readyReplicas" || f.To != int64(2) {
		t.Fatalf("StatusField = %v %v, %v; want status.readyReplicas from 1 to 2", f, f.To, ok)
	}
	if _, ok := SpecField(d, settled); ok {
		t.Errorf("SpecField found a field in an empty spec")
	}
}
