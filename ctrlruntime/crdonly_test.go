package ctrlruntime_test

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrltest/ctrltest/ctrlruntime"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

var gizmoGVK = schema.GroupVersionKind{Group: "gizmos.ctrltest.dev", Version: "v1", Kind: "Gizmo"}

func gizmo(name, color string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"namespace": "default", "name": name},
		"spec":     map[string]any{"color": color},
	}}
	u.SetGroupVersionKind(gizmoGVK)
	return u
}

// controller-runtime's client reads and writes a custom resource that has
// a CRD and nothing else (fixture.WithCustomResources, which the crd
// module's option passes) as unstructured objects, through the server
// model.
func TestCRDOnlyUnstructured(t *testing.T) {
	f := fixture.New(t, fixture.WithCustomResources(records.CustomResource{
		GVK: gizmoGVK, Resource: "gizmos", Namespaced: true, Status: true,
	}), fixture.WithObjects(gizmo("a", "red"), gizmo("b", "blue")))
	c := ctrlruntime.NewClient(f)

	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(gizmoGVK)
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "a"}, got); err != nil {
		t.Fatal(err)
	}
	if got.GetGeneration() != 1 || got.GetUID() == "" {
		t.Errorf("get a: generation %d uid %q; want 1 and a uid", got.GetGeneration(), got.GetUID())
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gizmoGVK.GroupVersion().WithKind("GizmoList"))
	if err := c.List(ctx, list, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2 || list.Items[0].GetName() != "a" || list.Items[1].GetName() != "b" {
		t.Errorf("gizmos: %d items; want a and b", len(list.Items))
	}
	created := gizmo("c", "green")
	if err := c.Create(ctx, created); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(created.Object, "ok", "status", "phase"); err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Update(ctx, created); err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(created.Object, "yellow", "spec", "color"); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(ctx, created); err != nil {
		t.Fatal(err)
	}
	stored := f.Object(gizmo("c", "")).(*unstructured.Unstructured)
	phase, _, _ := unstructured.NestedString(stored.Object, "status", "phase")
	color, _, _ := unstructured.NestedString(stored.Object, "spec", "color")
	if phase != "ok" || color != "yellow" || stored.GetGeneration() != 2 {
		t.Errorf("the stored gizmo: phase %q color %q generation %d; want ok, yellow, 2", phase, color, stored.GetGeneration())
	}
	if err := c.Delete(ctx, gizmo("b", "")); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "b"}, got); !apierrors.IsNotFound(err) {
		t.Errorf("get of the deleted gizmo: %v; want NotFound", err)
	}
}
