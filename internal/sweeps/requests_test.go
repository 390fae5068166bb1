package sweeps

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func TestFirstAppliedField(t *testing.T) {
	for _, tt := range []struct{ patch, want string }{
		{`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},"spec":{"replicas":3}}`, ".spec.replicas"},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  labels:\n    app: web\ndata:\n  a: b\n", ".data.a"},
		{`{"metadata":{"name":"web"}}`, ".metadata"},
		{`not yaml: [`, ".metadata"},
	} {
		if got := FirstAppliedField([]byte(tt.patch)); got != tt.want {
			t.Errorf("FirstAppliedField(%s) = %q, want %q", tt.patch, got, tt.want)
		}
	}
}

func TestPatchResourceVersion(t *testing.T) {
	for _, tt := range []struct {
		pt          types.PatchType
		patch, want string
	}{
		{types.MergePatchType, `{"metadata":{"resourceVersion":"7"},"spec":{"replicas":2}}`, "7"},
		{types.StrategicMergePatchType, `{"spec":{"replicas":2}}`, ""},
		{types.ApplyYAMLPatchType, "metadata:\n  resourceVersion: \"9\"\n", "9"},
		{types.JSONPatchType, `[{"op":"replace","path":"/metadata/resourceVersion","value":"4"}]`, "4"},
		{types.JSONPatchType, `[{"op":"add","path":"/metadata/resourceVersion","value":"4"},{"op":"remove","path":"/metadata/resourceVersion"}]`, ""},
		{types.JSONPatchType, `not json`, ""},
	} {
		if got := PatchResourceVersion(tt.pt, []byte(tt.patch)); got != tt.want {
			t.Errorf("PatchResourceVersion(%s, %s) = %q, want %q", tt.pt, tt.patch, got, tt.want)
		}
	}
}
