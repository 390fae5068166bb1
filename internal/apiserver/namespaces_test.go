package apiserver

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
)

// With Namespaces, a deleted namespace is Terminating while its
// spec.finalizers hold it; finalize writes them and removes it once none
// is left. Without, it goes at once. finalize of another resource is the
// server's 404 for a subresource it does not serve.
func TestNamespaceDeletion(t *testing.T) {
	gvr := corev1.SchemeGroupVersion.WithResource("namespaces")
	newResource := func() *Resource {
		return &Resource{GVR: gvr, GVK: corev1.SchemeGroupVersion.WithKind("Namespace"), Status: true,
			Store: clienttesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder()),
			New:   func() (runtime.Object, error) { return &corev1.Namespace{}, nil }}
	}
	create := func(t *testing.T, m *Model, r *Resource) {
		t.Helper()
		if _, _, err := m.Do(r, clienttesting.NewCreateAction(gvr, "", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})); err != nil {
			t.Fatal(err)
		}
	}
	get := func(r *Resource) *corev1.Namespace {
		obj, err := r.Store.Get(gvr, "", "team")
		if err != nil {
			return nil
		}
		return obj.(*corev1.Namespace)
	}

	m, r := NewModel(time.Now, 0), newResource()
	m.Namespaces = true
	create(t, m, r)
	wrong := types.UID("another")
	if _, _, err := m.Do(r, clienttesting.NewDeleteActionWithOptions(gvr, "", "team", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrong}})); !apierrors.IsConflict(err) {
		t.Errorf("a delete with another uid: %v, want a Conflict", err)
	}
	if _, changed, err := m.Do(r, clienttesting.NewDeleteAction(gvr, "", "team")); err != nil || !changed {
		t.Fatalf("delete: changed %v, %v", changed, err)
	}
	ns := get(r)
	if ns == nil || ns.DeletionTimestamp == nil || ns.Status.Phase != corev1.NamespaceTerminating || len(ns.Spec.Finalizers) != 1 {
		t.Fatalf("a deleted namespace: %+v", ns)
	}
	if _, changed, _ := m.Do(r, clienttesting.NewDeleteAction(gvr, "", "team")); changed || get(r) == nil {
		t.Error("a second delete changed the terminating namespace")
	}
	final := ns.DeepCopy()
	final.Spec.Finalizers = nil
	if _, changed, err := m.Do(r, clienttesting.NewUpdateSubresourceAction(gvr, "finalize", "", final)); err != nil || !changed {
		t.Fatalf("finalize: changed %v, %v", changed, err)
	}
	if get(r) != nil {
		t.Error("a finalized terminating namespace is still stored")
	}

	m, r = NewModel(time.Now, 0), newResource()
	create(t, m, r)
	if _, _, err := m.Do(r, clienttesting.NewDeleteAction(gvr, "", "team")); err != nil || get(r) != nil {
		t.Errorf("without Namespaces, a deleted namespace is removed at once: %v, %+v", err, get(r))
	}

	cms := corev1.SchemeGroupVersion.WithResource("configmaps")
	other := &Resource{GVR: cms, GVK: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Namespaced: true, Store: r.Store}
	if _, _, err := m.Do(other, clienttesting.NewUpdateSubresourceAction(cms, "finalize", "ns", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}})); !apierrors.IsNotFound(err) {
		t.Errorf("finalize of a config map: %v, want the server's NotFound", err)
	}
}
