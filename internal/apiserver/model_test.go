package apiserver

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"
)

// A request whose object is not of the stored type is refused, not a panic
// inside the strategies that copy parts of one object into the other.
func TestUpdateOfAnotherType(t *testing.T) {
	gvr := appsv1.SchemeGroupVersion.WithResource("deployments")
	store := clienttesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder())
	r := &Resource{GVR: gvr, GVK: appsv1.SchemeGroupVersion.WithKind("Deployment"), Namespaced: true, Status: true, Store: store,
		New: func() (runtime.Object, error) { return &appsv1.Deployment{}, nil }}
	m := NewModel(time.Now, 0)
	if _, _, err := m.Do(r, clienttesting.NewCreateAction(gvr, "ns", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}})); err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apps/v1")
	u.SetKind("Deployment")
	u.SetNamespace("ns")
	u.SetName("d")
	_, changed, err := m.Do(r, clienttesting.NewUpdateSubresourceAction(gvr, "status", "ns", u))
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "is stored as *v1.Deployment") || changed {
		t.Errorf("update with an unstructured object: changed %v, err %v; want a BadRequest naming both types", changed, err)
	}
}

// An apply's body decodes as YAML decodes it, JSON fast path or not.
func TestDecodeApply(t *testing.T) {
	for _, body := range []string{
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"v"}}`,
		`{"a":1,"a":2}`,
		`{"a":1.0,"b":1e3,"c":12345678901234567890,"d":"yes","e":null,"f":[1,{"g":2}]}`,
		`{"f":-0,"g":-0.5}`,
		`{"a":"\u00e9\ud83d\ude00"}`,
		`{"a":"\/"}`,
		"{\t\"a\":\t1}",
		"  {\"a\": 1}\n",
		`{"a":1} trailing`,
		`{"a":1e400}`,
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
		`[1]`,
		`null`,
	} {
		want := map[string]any{}
		werr := yaml.Unmarshal([]byte(body), &want)
		got := map[string]any{}
		gerr := decodeApply([]byte(body), &got)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Errorf("decodeApply(%q): error %v; want %v", body, gerr, werr)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("decodeApply(%q) (-yaml +got):\n%s", body, diff)
		}
	}
}
