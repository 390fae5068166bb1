package apiserver

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
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
