package actions_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
