package actions_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
)

// TestUnstructuredComparesAsTyped: an unstructured object compared with a
// typed one is compared as the typed object it converts to, either way
// round; a difference shows as the typed diff, and an object that does not
// convert still differs.
func TestUnstructuredComparesAsTyped(t *testing.T) {
	typed := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", ResourceVersion: "7"},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](2)},
	}
	manifest := func(replicas any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"namespace": "default", "name": "web"},
			"spec":     map[string]any{"replicas": replicas},
		}}
	}
	for _, tc := range []struct {
		name      string
		want, got []actions.Action
		diff      string // "" when they match, else a fragment of the diff
	}{
		{"manifest expected, typed recorded", []actions.Action{actions.Create(manifest(int64(2)))}, []actions.Action{actions.Create(typed)}, ""},
		{"typed expected, manifest recorded", []actions.Action{actions.Create(typed)}, []actions.Action{actions.Create(manifest(int64(2)))}, ""},
		{"a different field", []actions.Action{actions.Create(manifest(int64(3)))}, []actions.Action{actions.Create(typed)}, "Replicas"},
		{"a manifest that does not convert", []actions.Action{actions.Create(manifest("two"))}, []actions.Action{actions.Create(typed)}, "replicas"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := actions.Diff(tc.want, tc.got)
			switch {
			case tc.diff == "" && d != "":
				t.Errorf("Diff = %s, want a match", d)
			case tc.diff != "" && !strings.Contains(d, tc.diff):
				t.Errorf("Diff = %q, want a diff naming %q", d, tc.diff)
			}
		})
	}
}

// TestDiffLeavesUnstructuredObjectsAlone: comparing unstructured objects
// (a custom resource with no Go type, on both sides) changes neither: the
// normalization works on copies.
func TestDiffLeavesUnstructuredObjectsAlone(t *testing.T) {
	widget := func(rv string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"namespace": "default", "name": "w", "resourceVersion": rv, "uid": "u-" + rv},
			"spec":     map[string]any{"size": int64(1)},
		}}
	}
	want, got := widget("1"), widget("2")
	wantCopy, gotCopy := want.DeepCopy(), got.DeepCopy()
	gvr := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	wa, ga := actions.Update(want), actions.Update(got)
	wa.Resource, ga.Resource = gvr, gvr
	if d := actions.Diff([]actions.Action{wa}, []actions.Action{ga}); d != "" {
		t.Errorf("objects that differ in volatile fields only: diff\n%s", d)
	}
	if d := cmp.Diff(wantCopy, want); d != "" {
		t.Errorf("Diff changed the expected object (-before +after):\n%s", d)
	}
	if d := cmp.Diff(gotCopy, got); d != "" {
		t.Errorf("Diff changed the recorded object (-before +after):\n%s", d)
	}
}
