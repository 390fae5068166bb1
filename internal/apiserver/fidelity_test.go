package apiserver

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// The classes of divergence the differential fuzzer (parity/fuzz) found
// between the model and kube-apiserver v1.37, each with the server's
// answer as the fuzzer recorded it.

// fidelityWorld is newWorld with the kinds these tests need besides.
func fidelityWorld(t *testing.T) *world {
	t.Helper()
	w := newWorld(t)
	w.add(batchv1.SchemeGroupVersion, "jobs", "Job", true)
	w.add(coordinationv1.SchemeGroupVersion, "leases", "Lease", false)
	w.add(corev1.SchemeGroupVersion, "events", "Event", false)
	return w
}

func configMap(name string, finalizers ...string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: finalizers}}
}

func deleteAction(resource, name string, opts metav1.DeleteOptions) clienttesting.DeleteActionImpl {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: resource}
	if resource == "jobs" {
		gvr = batchv1.SchemeGroupVersion.WithResource(resource)
	}
	return clienttesting.NewDeleteActionWithOptions(gvr, "ns", name, opts)
}

func policy(p metav1.DeletionPropagation) metav1.DeleteOptions {
	return metav1.DeleteOptions{PropagationPolicy: &p}
}

func finalizersOf(t *testing.T, obj runtime.Object) []string {
	t.Helper()
	if obj == nil {
		return nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	return m.GetFinalizers()
}

// A second delete with another propagation policy of an object already
// being deleted swaps the garbage collector's finalizers (the registry's
// updateForGracefulDeletionAndFinalizers), and one that removes the last
// finalizer deletes the object.
func TestDeleteAgainChangesGCFinalizers(t *testing.T) {
	w := fidelityWorld(t)
	w.create(t, "v1/configmaps", configMap("c", "example.com/keep"))
	steps := []struct {
		opts    metav1.DeleteOptions
		want    []string
		changed bool
	}{
		{policy(metav1.DeletePropagationOrphan), []string{"example.com/keep", metav1.FinalizerOrphanDependents}, true},
		{policy(metav1.DeletePropagationForeground), []string{"example.com/keep", metav1.FinalizerDeleteDependents}, true},
		{metav1.DeleteOptions{}, []string{"example.com/keep", metav1.FinalizerDeleteDependents}, false},
		{policy(metav1.DeletePropagationBackground), []string{"example.com/keep"}, true},
	}
	for i, s := range steps {
		_, changed, err := w.do(t, "v1/configmaps", deleteAction("configmaps", "c", s.opts))
		if err != nil {
			t.Fatalf("delete %d: %v", i+1, err)
		}
		if got := finalizersOf(t, w.get(t, "v1/configmaps", "c")); !slices.Equal(got, s.want) || changed != s.changed {
			t.Errorf("delete %d (%v): finalizers %q, changed %v; want %q, %v", i+1, s.opts.PropagationPolicy, got, changed, s.want, s.changed)
		}
	}
	// Only the orphan finalizer left: a background delete removes it, and
	// the object with it.
	w.create(t, "v1/configmaps", configMap("d"))
	for _, p := range []metav1.DeletionPropagation{metav1.DeletePropagationOrphan, metav1.DeletePropagationBackground} {
		if _, _, err := w.do(t, "v1/configmaps", deleteAction("configmaps", "d", policy(p))); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.get(t, "v1/configmaps", "d"); got != nil {
		t.Errorf("after an orphan then a background delete: %v; want it deleted", finalizersOf(t, got))
	}
}

// Jobs (batch/v1) and ReplicationControllers (v1) orphan their dependents
// by default: a delete without a policy adds the orphan finalizer, which
// keeps them until a garbage collector removes it. Events support no
// propagation policy.
func TestDefaultGarbageCollectionPolicy(t *testing.T) {
	w := fidelityWorld(t)
	w.create(t, "v1/jobs", &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"}})
	w.create(t, "v1/replicationcontrollers", &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "rc"}})
	w.create(t, "v1/events", &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Finalizers: []string{"example.com/keep"}}})
	for _, c := range []struct{ key, resource, name string }{{"v1/jobs", "jobs", "j"}, {"v1/replicationcontrollers", "replicationcontrollers", "rc"}} {
		if _, _, err := w.do(t, c.key, deleteAction(c.resource, c.name, metav1.DeleteOptions{})); err != nil {
			t.Fatal(err)
		}
		got := w.get(t, c.key, c.name)
		if got == nil || !slices.Equal(finalizersOf(t, got), []string{metav1.FinalizerOrphanDependents}) {
			t.Errorf("%s deleted with default options: %v; want it kept with the orphan finalizer", c.resource, got)
		}
	}
	if _, _, err := w.do(t, "v1/events", deleteAction("events", "e", policy(metav1.DeletePropagationOrphan))); err != nil {
		t.Fatal(err)
	}
	if got := finalizersOf(t, w.get(t, "v1/events", "e")); !slices.Equal(got, []string{"example.com/keep"}) {
		t.Errorf("event deleted with the orphan policy: finalizers %q; want its own only", got)
	}
}

// Error messages, word for word as kube-apiserver v1.37 words them.
func TestServerErrorMessages(t *testing.T) {
	w := fidelityWorld(t)
	w.create(t, "v1/configmaps", configMap("c", "example.com/keep"))
	stored, _ := meta.Accessor(w.get(t, "v1/configmaps", "c"))
	uid := stored.GetUID()

	// rest.BeforeDelete names the kind, not the resource.
	_, _, err := w.do(t, "v1/configmaps", deleteAction("configmaps", "c", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(types.UID("other"))}}))
	want := `Operation cannot be fulfilled on ConfigMap "c": the UID in the precondition (other) does not match the UID in record (` + string(uid) + `). The object might have been deleted and then recreated`
	if err == nil || err.Error() != want || !apierrors.IsConflict(err) {
		t.Errorf("delete with a stale uid: %v;\nwant the Conflict %q", err, want)
	}
	_, _, err = w.do(t, "v1/configmaps", deleteAction("configmaps", "c", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("0")}}))
	want = `Operation cannot be fulfilled on ConfigMap "c": the ResourceVersion in the precondition (0) does not match the ResourceVersion in record (` + stored.GetResourceVersion() + `). The object might have been modified`
	if err == nil || err.Error() != want {
		t.Errorf("delete with a stale resourceVersion: %v;\nwant %q", err, want)
	}

	// A create of a name held by an object being deleted.
	if _, _, err := w.do(t, "v1/configmaps", deleteAction("configmaps", "c", metav1.DeleteOptions{})); err != nil {
		t.Fatal(err)
	}
	_, _, err = w.do(t, "v1/configmaps", clienttesting.NewCreateAction(corev1.SchemeGroupVersion.WithResource("configmaps"), "ns", configMap("c")))
	if want := `object is being deleted: configmaps "c" already exists`; err == nil || err.Error() != want || !apierrors.IsAlreadyExists(err) {
		t.Errorf("create over an object being deleted: %v; want the AlreadyExists %q", err, want)
	}

	// No finalizer may be added to an object being deleted.
	cm := w.get(t, "v1/configmaps", "c").(*corev1.ConfigMap)
	cm.Finalizers = append(cm.Finalizers, "example.com/b", "example.com/a")
	_, _, err = w.do(t, "v1/configmaps", clienttesting.NewUpdateAction(corev1.SchemeGroupVersion.WithResource("configmaps"), "ns", cm))
	want = `ConfigMap "c" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/a", "example.com/b"}`
	if err == nil || err.Error() != want || !apierrors.IsInvalid(err) {
		t.Errorf("update adding finalizers while deleting: %v;\nwant %q", err, want)
	}

	// A JSON patch that does not apply: the generic 422 (the server's
	// patcher names no verb nor resource, and drops the patch's error).
	w.create(t, "v1/configmaps", configMap("p"))
	_, _, err = w.do(t, "v1/configmaps", clienttesting.NewPatchAction(corev1.SchemeGroupVersion.WithResource("configmaps"), "ns", "p",
		types.JSONPatchType, []byte(`[{"op":"remove","path":"/metadata/labels/x"}]`)))
	want = "the server rejected our request due to an error in our request"
	if err == nil || err.Error() != want || !apierrors.IsInvalid(err) {
		t.Errorf("JSON patch removing a missing field: %v; want the Invalid %q", err, want)
	}

	// A resource whose strategy refuses unconditional updates.
	w.create(t, "v1/leases", &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l"}})
	lease := w.get(t, "v1/leases", "l").(*coordinationv1.Lease)
	lease.ResourceVersion = ""
	lease.Spec.HolderIdentity = ptr.To("me")
	_, _, err = w.do(t, "v1/leases", clienttesting.NewUpdateAction(coordinationv1.SchemeGroupVersion.WithResource("leases"), "ns", lease))
	want = `leases.coordination.k8s.io "l" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`
	if err == nil || err.Error() != want {
		t.Errorf("unconditional update of a Lease: %v;\nwant %q", err, want)
	}
}

// A custom resource: a strategic merge patch is refused (415) before the
// object is read, and a subresource its CRD does not declare is the
// resource's NotFound, naming it.
func TestCustomResourceRefusals(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}
	r := &Resource{GVR: gvk.GroupVersion().WithResource("gadgets"), GVK: gvk, Namespaced: true, Custom: true,
		Store: &mapStore{objs: map[string]*unstructured.Unstructured{}},
		New: func() (runtime.Object, error) {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(gvk)
			return u, nil
		}}
	m := NewModel(time.Now, 0)
	_, _, err := m.Do(r, clienttesting.NewPatchAction(r.GVR, "ns", "missing", types.StrategicMergePatchType, []byte(`{}`)))
	if !apierrors.IsUnsupportedMediaType(err) {
		t.Errorf("strategic merge patch of a missing custom resource: %v; want 415", err)
	}
	_, _, err = m.Do(r, clienttesting.NewPatchSubresourceAction(r.GVR, "ns", "g", types.MergePatchType, []byte(`{}`), "status"))
	if want := `gadgets.example.com "g" not found`; !apierrors.IsNotFound(err) || err.Error() != want {
		t.Errorf("patch of /status the CRD does not declare: %v; want the NotFound %q", err, want)
	}
	if err != nil && strings.Contains(err.Error(), "could not find the requested resource") {
		t.Errorf("a custom resource's undeclared subresource answered as a built-in's missing route: %v", err)
	}
}

// A dry run's answer carries the revision the store read: none for a
// create, the stored one for an update.
func TestDryRunAnswers(t *testing.T) {
	w := fidelityWorld(t)
	gvr := corev1.SchemeGroupVersion.WithResource("configmaps")
	dry := []string{metav1.DryRunAll}
	got, _, err := w.do(t, "v1/configmaps", clienttesting.NewCreateActionWithOptions(gvr, "ns", configMap("c"), metav1.CreateOptions{DryRun: dry}))
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := meta.Accessor(got); m.GetResourceVersion() != "" || m.GetUID() == "" || m.GetCreationTimestamp() == (metav1.Time{}) {
		t.Errorf("dry-run create's answer: resourceVersion %q, uid %q, creationTimestamp %v; want no resourceVersion, a uid and a time",
			m.GetResourceVersion(), m.GetUID(), m.GetCreationTimestamp())
	}
	w.create(t, "v1/configmaps", configMap("c"))
	cm := w.get(t, "v1/configmaps", "c").(*corev1.ConfigMap)
	stored := cm.ResourceVersion
	cm.Data = map[string]string{"k": "v"}
	got, _, err = w.do(t, "v1/configmaps", clienttesting.NewUpdateActionWithOptions(gvr, "ns", cm, metav1.UpdateOptions{DryRun: dry}))
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := meta.Accessor(got); m.GetResourceVersion() != stored {
		t.Errorf("dry-run update's answer: resourceVersion %q; want the stored %q", m.GetResourceVersion(), stored)
	}

	// An update that would create (create on update) answers with the
	// resourceVersion it sent, none included.
	leases := coordinationv1.SchemeGroupVersion.WithResource("leases")
	for _, rv := range []string{"", "5"} {
		lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l", ResourceVersion: rv}}
		got, changed, err := w.do(t, "v1/leases", clienttesting.NewUpdateActionWithOptions(leases, "ns", lease, metav1.UpdateOptions{DryRun: dry}))
		if err != nil || changed {
			t.Fatalf("dry-run update of a missing Lease: changed %v, %v", changed, err)
		}
		if m, _ := meta.Accessor(got); m.GetResourceVersion() != rv || m.GetUID() == "" {
			t.Errorf("dry-run update creating a Lease, sending resourceVersion %q: answered %q, uid %q; want %[1]q and a uid", rv, m.GetResourceVersion(), m.GetUID())
		}
	}
}

// A DaemonSet's template generation (the annotation
// deprecated.daemonset.template.generation) is 1 at create, rises with
// each change of the pod template, and is the server's alone.
func TestDaemonSetTemplateGeneration(t *testing.T) {
	w := fidelityWorld(t)
	gvr := appsv1.SchemeGroupVersion.WithResource("daemonsets")
	w.res["v1/daemonsets"] = &Resource{GVR: gvr, GVK: appsv1.SchemeGroupVersion.WithKind("DaemonSet"), Namespaced: true, Status: true, Store: w.tracker,
		New: func() (runtime.Object, error) { return &appsv1.DaemonSet{}, nil }}
	w.create(t, "v1/daemonsets", &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "ds"}})
	generation := func() string {
		return w.get(t, "v1/daemonsets", "ds").(*appsv1.DaemonSet).Annotations[templateGeneration]
	}
	if g := generation(); g != "1" {
		t.Errorf("after create: template generation %q; want 1", g)
	}
	update := func(sub string, edit func(*appsv1.DaemonSet)) {
		t.Helper()
		ds := w.get(t, "v1/daemonsets", "ds").(*appsv1.DaemonSet)
		edit(ds)
		if _, _, err := w.do(t, "v1/daemonsets", clienttesting.NewUpdateSubresourceAction(gvr, sub, "ns", ds)); err != nil {
			t.Fatal(err)
		}
	}
	update("", func(ds *appsv1.DaemonSet) { ds.Spec.Template.Annotations = map[string]string{"a": "1"} })
	if g := generation(); g != "2" {
		t.Errorf("after a template change: template generation %q; want 2", g)
	}
	update("", func(ds *appsv1.DaemonSet) { ds.Annotations[templateGeneration] = "7"; ds.Spec.MinReadySeconds = 3 })
	update("status", func(ds *appsv1.DaemonSet) { delete(ds.Annotations, templateGeneration) })
	if g := generation(); g != "2" {
		t.Errorf("after writes that set or remove it: template generation %q; want 2 (the server's)", g)
	}
}

// An update of a missing object creates it where the strategy allows
// create on update (Leases, Services, Roles, ...), whatever resourceVersion
// it sends; elsewhere it is a 404.
func TestUpdateCreates(t *testing.T) {
	w := fidelityWorld(t)
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l", ResourceVersion: "5"}, Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("me")}}
	_, changed, err := w.do(t, "v1/leases", clienttesting.NewUpdateAction(coordinationv1.SchemeGroupVersion.WithResource("leases"), "ns", lease))
	if err != nil || !changed {
		t.Fatalf("update of a missing Lease: changed %v, %v; want it created", changed, err)
	}
	if got := w.get(t, "v1/leases", "l"); got == nil || *got.(*coordinationv1.Lease).Spec.HolderIdentity != "me" {
		t.Errorf("after an update of a missing Lease: %v; want it stored", got)
	}
	_, _, err = w.do(t, "v1/configmaps", clienttesting.NewUpdateAction(corev1.SchemeGroupVersion.WithResource("configmaps"), "ns", configMap("c")))
	if !apierrors.IsNotFound(err) {
		t.Errorf("update of a missing ConfigMap: %v; want 404", err)
	}
}

// Without a field manager, an update that sends no managed fields keeps
// the stored ones (they come from applies), as the server's field manager
// does for clients that do not know them; one empty entry clears them.
func TestUpdateKeepsManagedFields(t *testing.T) {
	w := fidelityWorld(t)
	gvr := corev1.SchemeGroupVersion.WithResource("configmaps")
	applied := configMap("c")
	applied.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "a", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1"}}
	w.create(t, "v1/configmaps", applied)
	blind := configMap("c")
	_, changed, err := w.do(t, "v1/configmaps", clienttesting.NewUpdateAction(gvr, "ns", blind))
	if err != nil || changed {
		t.Errorf("update sending no managed fields: changed %v, %v; want a no-op", changed, err)
	}
	reset := configMap("c")
	reset.ManagedFields = []metav1.ManagedFieldsEntry{{}}
	if _, _, err := w.do(t, "v1/configmaps", clienttesting.NewUpdateAction(gvr, "ns", reset)); err != nil {
		t.Fatal(err)
	}
	if got := w.get(t, "v1/configmaps", "c").(*corev1.ConfigMap).ManagedFields; len(got) != 0 {
		t.Errorf("update sending one empty entry: managed fields %v; want none", got)
	}
}

// A shorter grace period for a pod being deleted gracefully is a graceful
// delete again: its propagation policy sets the garbage collector's
// finalizers.
func TestShorterGracePeriodSetsGCFinalizers(t *testing.T) {
	w := fidelityWorld(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Finalizers: []string{"example.com/keep"}}, Spec: corev1.PodSpec{NodeName: "n1"}}
	w.create(t, "v1/pods", pod)
	if _, _, err := w.do(t, "v1/pods", deleteAction("pods", "p", metav1.DeleteOptions{})); err != nil {
		t.Fatal(err)
	}
	opts := policy(metav1.DeletePropagationForeground)
	opts.GracePeriodSeconds = ptr.To[int64](0)
	if _, _, err := w.do(t, "v1/pods", deleteAction("pods", "p", opts)); err != nil {
		t.Fatal(err)
	}
	want := []string{"example.com/keep", metav1.FinalizerDeleteDependents}
	if got := finalizersOf(t, w.get(t, "v1/pods", "p")); !slices.Equal(got, want) {
		t.Errorf("after a foreground delete with a shorter grace period: finalizers %q; want %q", got, want)
	}
}

// A delete that removes the last (garbage collector's) finalizer of an
// object, with a resourceVersion precondition, fails as on kube-apiserver
// v1.37: its Store.Delete checks the precondition against the
// resourceVersion of an update it did not write (""), and the object
// stays. A dry run answers an empty object; without the precondition the
// object is deleted.
func TestDeleteLosesItsPrecondition(t *testing.T) {
	w := fidelityWorld(t)
	w.create(t, "v1/configmaps", configMap("c"))
	if _, _, err := w.do(t, "v1/configmaps", deleteAction("configmaps", "c", policy(metav1.DeletePropagationForeground))); err != nil {
		t.Fatal(err)
	}
	stored, _ := meta.Accessor(w.get(t, "v1/configmaps", "c"))
	rv := stored.GetResourceVersion()
	background := policy(metav1.DeletePropagationBackground)
	background.Preconditions = &metav1.Preconditions{ResourceVersion: ptr.To(rv)}

	dry := *background.DeepCopy()
	dry.DryRun = []string{metav1.DryRunAll}
	got, changed, err := w.do(t, "v1/configmaps", deleteAction("configmaps", "c", dry))
	if err != nil || changed {
		t.Fatalf("dry-run delete: changed %v, %v; want no change, no error", changed, err)
	}
	if m, _ := meta.Accessor(got); m.GetName() != "" || m.GetResourceVersion() != "" {
		t.Errorf("dry-run delete's answer: %q at %q; want the empty object", m.GetName(), m.GetResourceVersion())
	}

	_, changed, err = w.do(t, "v1/configmaps", deleteAction("configmaps", "c", background))
	want := `Operation cannot be fulfilled on configmaps "c": StorageError: invalid object, Code: 4, Key: /registry/configmaps/ns/c, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: , ResourceVersion in object meta: ` + rv
	if err == nil || err.Error() != want || !apierrors.IsConflict(err) || changed {
		t.Errorf("delete with the current resourceVersion as precondition: changed %v, %v;\nwant the Conflict %q", changed, err, want)
	}
	if got := w.get(t, "v1/configmaps", "c"); got == nil || !slices.Equal(finalizersOf(t, got), []string{metav1.FinalizerDeleteDependents}) {
		t.Errorf("after the failed delete: %v; want it kept with the foreground finalizer", got)
	} else if m, _ := meta.Accessor(got); m.GetResourceVersion() != rv {
		t.Errorf("after the failed delete: resourceVersion %q; want %q", m.GetResourceVersion(), rv)
	}

	if _, _, err := w.do(t, "v1/configmaps", deleteAction("configmaps", "c", policy(metav1.DeletePropagationBackground))); err != nil {
		t.Fatal(err)
	}
	if got := w.get(t, "v1/configmaps", "c"); got != nil {
		t.Errorf("after a background delete without precondition: %v; want it deleted", got)
	}
}

// The etcd keys the server names in a storage error.
func TestStorageKey(t *testing.T) {
	for _, c := range []struct {
		r    Resource
		want string
	}{
		{Resource{GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Namespaced: true}, "/registry/deployments/ns/a"},
		{Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "services"}, Namespaced: true}, "/registry/services/specs/ns/a"},
		{Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "replicationcontrollers"}, Namespaced: true}, "/registry/controllers/ns/a"},
		{Resource{GVR: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}}, "/registry/minions/a"},
		{Resource{GVR: schema.GroupVersionResource{Group: "gateway.ctrltest.dev", Version: "v1alpha1", Resource: "gateways"}, Namespaced: true, Custom: true}, "/registry/gateway.ctrltest.dev/gateways/ns/a"},
	} {
		if got := storageKey(&c.r, "ns", "a"); got != c.want {
			t.Errorf("storageKey(%s): %q; want %q", c.r.GVR, got, c.want)
		}
	}
}

// The admission plugins that change a created pod run on its every update
// too: an update that leaves out the tolerations and the priority a create
// gave the pod gets them back, and changes nothing (the fuzzer's "Pod:
// generation": the model bumped the generation where the server did not).
func TestPodUpdateIsAdmitted(t *testing.T) {
	w := fidelityWorld(t)
	gvr := corev1.SchemeGroupVersion.WithResource("pods")
	w.create(t, "v1/pods", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}})
	created := w.get(t, "v1/pods", "p").(*corev1.Pod)
	if len(created.Spec.Tolerations) != 2 || created.Spec.Priority == nil {
		t.Fatalf("a created pod: tolerations %v, priority %v; want both admitted", created.Spec.Tolerations, created.Spec.Priority)
	}
	bare := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	_, changed, err := w.do(t, "v1/pods", clienttesting.NewUpdateAction(gvr, "ns", bare))
	if err != nil || changed {
		t.Errorf("update leaving out what admission gave: changed %v, %v; want a no-op", changed, err)
	}
	got := w.get(t, "v1/pods", "p").(*corev1.Pod)
	if got.Generation != created.Generation || got.ResourceVersion != created.ResourceVersion {
		t.Errorf("after the update: generation %d, resourceVersion %s; want %d, %s", got.Generation, got.ResourceVersion, created.Generation, created.ResourceVersion)
	}
	if d := cmp.Diff(created.Spec, got.Spec); d != "" {
		t.Errorf("spec after the update (-created +got):\n%s", d)
	}
}

// A create with generateName that finds its name taken: the registry
// tries other generated names (createWithGenerateNameRetry), and a name
// that stays taken is rest.CheckGeneratedNameError's conflict, whose
// message says the server could not generate a unique name, also when
// the request named the object itself beside a generateName.
func TestGenerateNameConflict(t *testing.T) {
	w := fidelityWorld(t)
	cms := corev1.SchemeGroupVersion.WithResource("configmaps")
	w.create(t, "v1/configmaps", configMap("web-00001"))
	// The first generated name is taken: the next is tried.
	_, _, err := w.do(t, "v1/configmaps", clienttesting.NewCreateAction(cms, "ns", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "web-"}}))
	if err != nil {
		t.Fatalf("generateName create over a taken first name: %v", err)
	}
	if w.get(t, "v1/configmaps", "web-00002") == nil {
		t.Errorf("generateName create over a taken first name did not take the next")
	}

	w.create(t, "v1/configmaps", configMap("a"))
	_, _, err = w.do(t, "v1/configmaps", clienttesting.NewCreateAction(cms, "ns", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", GenerateName: "web-"}}))
	want := &metav1.Status{
		Status: metav1.StatusFailure, Code: 409, Reason: metav1.StatusReasonAlreadyExists,
		Message: `configmaps "a" already exists, the server was not able to generate a unique name for the object`,
		Details: &metav1.StatusDetails{Kind: "configmaps", Name: "a", RetryAfterSeconds: 1},
	}
	var got *metav1.Status
	if se, ok := err.(apierrors.APIStatus); ok {
		s := se.Status()
		got = &s
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("create of a taken name with generateName: %v (-want +got):\n%s", err, d)
	}

	// Every name it tries is taken: the last one's conflict.
	for i := 3; i <= 10; i++ {
		w.create(t, "v1/configmaps", configMap(fmt.Sprintf("web-%05d", i)))
	}
	_, _, err = w.do(t, "v1/configmaps", clienttesting.NewCreateAction(cms, "ns", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "web-"}}))
	if want := `configmaps "web-00010" already exists, the server was not able to generate a unique name for the object`; err == nil || err.Error() != want || !apierrors.IsAlreadyExists(err) {
		t.Errorf("generateName create with every name taken: %v;\nwant %q", err, want)
	}
}
