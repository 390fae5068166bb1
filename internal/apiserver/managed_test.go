package apiserver

import (
	"slices"
	"strings"
	"testing"
	"time"

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

// The server's field manager sees a DaemonSet's template generation as
// the request has it (through the internal spec.templateGeneration,
// written back as "0" when the request has none), before the strategy
// sets the stored one (kube-apiserver v1.37, as the fuzzer found it): a
// create owns it (the request's "0" against an empty object), a blind
// update of another manager takes it, though the stored value stays; an
// update that sends back what it read does not (and the creator's own
// blind update is a no-op: TestManagedFieldsTimesOfANoOp).
func TestDaemonSetTemplateGenerationOwnership(t *testing.T) {
	w := newWorld(t)
	gvk := appsv1.SchemeGroupVersion.WithKind("DaemonSet")
	w.add(appsv1.SchemeGroupVersion, "daemonsets", "DaemonSet", true)
	r := w.res["v1/daemonsets"]
	r.Fields = newDeducedFields(t, gvk, "")
	gvr := r.GVR
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "ds", Labels: map[string]string{"app": "x"}}}
	if _, _, err := w.do(t, "v1/daemonsets", clienttesting.NewCreateActionWithOptions(gvr, "ns", ds, metav1.CreateOptions{FieldManager: "b"})); err != nil {
		t.Fatal(err)
	}
	owners := func() []string {
		t.Helper()
		got := w.get(t, "v1/daemonsets", "ds").(*appsv1.DaemonSet)
		if g := got.Annotations[templateGeneration]; g != "1" {
			t.Errorf("template generation %q; want 1 (the strategy's)", g)
		}
		var out []string
		for _, e := range got.ManagedFields {
			if strings.Contains(e.FieldsV1.String(), templateGeneration) {
				out = append(out, e.Manager)
			}
		}
		return out
	}
	update := func(manager string, obj *appsv1.DaemonSet) bool {
		t.Helper()
		_, changed, err := w.do(t, "v1/daemonsets", clienttesting.NewUpdateActionWithOptions(gvr, "ns", obj, metav1.UpdateOptions{FieldManager: manager}))
		if err != nil {
			t.Fatal(err)
		}
		return changed
	}
	if got := owners(); !slices.Equal(got, []string{"b"}) {
		t.Errorf("after a create without the annotation: its owners %q; want b", got)
	}

	read := w.get(t, "v1/daemonsets", "ds").(*appsv1.DaemonSet)
	read.Labels["app"] = "y"
	update("c", read)
	if got := owners(); !slices.Equal(got, []string{"b"}) {
		t.Errorf("after an update sending back what it read: its owners %q; want b", got)
	}

	update("a", &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "ds", Labels: map[string]string{"app": "z"}}})
	if got := owners(); !slices.Equal(got, []string{"a"}) {
		t.Errorf("after another manager's blind update without the annotation: its owners %q; want a", got)
	}
	if got, want := managers(t, w.get(t, "v1/daemonsets", "ds")), []string{"a Update", "b Update"}; !slices.Equal(got, want) {
		t.Errorf("managers %q; want %q (c owned only the label a took)", got, want)
	}
}

// A write whose only change is the time of its manager's entry (a
// DaemonSet's creator writing it again without the template generation,
// whose value the strategy restores) keeps the stored time and is a
// no-op: the registry's IgnoreManagedFieldsTimestampsTransformer, which
// compares the entries pairwise (they are sorted by time, so with more
// than one the new time may reorder them, and the write is not a no-op,
// on the server as on the model).
func TestManagedFieldsTimesOfANoOp(t *testing.T) {
	w := newWorld(t)
	w.add(appsv1.SchemeGroupVersion, "daemonsets", "DaemonSet", true)
	r := w.res["v1/daemonsets"]
	r.Fields = newDeducedFields(t, r.GVK, "")
	gvr := r.GVR
	ds := func() *appsv1.DaemonSet {
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "ds", Labels: map[string]string{"app": "x"}}}
	}
	if _, _, err := w.do(t, "v1/daemonsets", clienttesting.NewCreateActionWithOptions(gvr, "ns", ds(), metav1.CreateOptions{FieldManager: "b"})); err != nil {
		t.Fatal(err)
	}
	// The creator's entry was written in another second.
	stored := w.get(t, "v1/daemonsets", "ds").(*appsv1.DaemonSet)
	long := metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	stored.ManagedFields[0].Time = &long
	if err := w.tracker.Update(gvr, stored, "ns"); err != nil {
		t.Fatal(err)
	}
	_, changed, err := w.do(t, "v1/daemonsets", clienttesting.NewUpdateActionWithOptions(gvr, "ns", ds(), metav1.UpdateOptions{FieldManager: "b"}))
	if err != nil {
		t.Fatal(err)
	}
	got := w.get(t, "v1/daemonsets", "ds").(*appsv1.DaemonSet)
	if changed || got.ResourceVersion != stored.ResourceVersion {
		t.Errorf("the creator's blind update of what is stored: changed %v, resourceVersion %s; want a no-op at %s", changed, got.ResourceVersion, stored.ResourceVersion)
	}
	if e := got.ManagedFields[0]; !e.Time.Equal(&long) {
		t.Errorf("after a no-op: %s's managed fields time %v; want the stored %v", e.Manager, e.Time, long)
	}
}
