package apiserver

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
)

// deducedFields is a field manager per subresource of one kind, with a
// deduced schema (SubresourceFieldManager).
type deducedFields struct {
	*managedfields.FieldManager
	t   *testing.T
	gvk schema.GroupVersionKind
}

func newDeducedFields(t *testing.T, gvk schema.GroupVersionKind, sub string) deducedFields {
	t.Helper()
	fm, err := managedfields.NewDefaultFieldManager(managedfields.NewDeducedTypeConverter(), scheme.Scheme, scheme.Scheme, scheme.Scheme, gvk, gvk.GroupVersion(), sub, nil)
	if err != nil {
		t.Fatal(err)
	}
	return deducedFields{fm, t, gvk}
}

func (d deducedFields) Subresource(sub string) (FieldManager, error) {
	return newDeducedFields(d.t, d.gvk, sub), nil
}

// managers shows an object's managed fields entries: "a Update", "b
// Update status".
func managers(t *testing.T, obj runtime.Object) []string {
	t.Helper()
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range m.GetManagedFields() {
		s := e.Manager + " " + string(e.Operation)
		if e.Subresource != "" {
			s += " " + e.Subresource
		}
		out = append(out, s)
	}
	return out
}

// With a field manager, every write records its manager as kube-apiserver
// does: the user agent's program name when the request names none; not a
// write whose changes the strategy drops (a status written through the
// main resource: the server's field manager ignores the strategy's reset
// fields, and the write stays a no-op); a /status write in an entry of its
// own subresource.
func TestManagedFieldsOfEveryWrite(t *testing.T) {
	w := newWorld(t)
	r := w.res["v1/deployments"]
	r.Fields = newDeducedFields(t, r.GVK, "")
	gvr := r.GVR
	if _, _, err := w.do(t, "v1/deployments", clienttesting.NewCreateAction(gvr, "ns", webDeployment(1))); err != nil {
		t.Fatal(err)
	}
	d := w.get(t, "v1/deployments", "web").(*appsv1.Deployment)
	if got, want := managers(t, d), []string{userAgentManager() + " Update"}; !slices.Equal(got, want) {
		t.Errorf("create naming no manager: managers %q; want %q (the user agent's)", got, want)
	}

	d.Status.ObservedGeneration = 7
	_, changed, err := w.do(t, "v1/deployments", clienttesting.NewUpdateActionWithOptions(gvr, "ns", d, metav1.UpdateOptions{FieldManager: "b"}))
	if err != nil {
		t.Fatal(err)
	}
	d = w.get(t, "v1/deployments", "web").(*appsv1.Deployment)
	if got := managers(t, d); changed || len(got) != 1 {
		t.Errorf("status written through the main resource: changed %v, managers %q; want a no-op", changed, got)
	}

	d.Status.ObservedGeneration = 7
	if _, _, err := w.do(t, "v1/deployments", clienttesting.NewUpdateSubresourceActionWithOptions(gvr, "status", "ns", d, metav1.UpdateOptions{FieldManager: "b"})); err != nil {
		t.Fatal(err)
	}
	d = w.get(t, "v1/deployments", "web").(*appsv1.Deployment)
	if got, want := managers(t, d), []string{userAgentManager() + " Update", "b Update status"}; !slices.Equal(got, want) {
		t.Errorf("after a /status update: managers %q; want %q", got, want)
	}
}
