package apiserver

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	appsv1beta2 "k8s.io/api/apps/v1beta2"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// world is a model with a tracker holding the kubernetes clientset's
// types, and the resources it serves, by resource name.
type world struct {
	m       *Model
	tracker clienttesting.ObjectTracker
	res     map[string]*Resource
	written []string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	w := &world{
		m:       NewModel(func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }, 0),
		tracker: clienttesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder()),
		res:     map[string]*Resource{},
	}
	w.m.Written = func(r *Resource, ns, name string) { w.written = append(w.written, r.GVR.Resource+" "+ns+"/"+name) }
	w.add(appsv1.SchemeGroupVersion, "deployments", "Deployment", true)
	w.add(appsv1beta2.SchemeGroupVersion, "deployments", "Deployment", true)
	w.add(corev1.SchemeGroupVersion, "replicationcontrollers", "ReplicationController", true)
	w.add(corev1.SchemeGroupVersion, "pods", "Pod", true)
	w.add(corev1.SchemeGroupVersion, "configmaps", "ConfigMap", false)
	w.add(schema.GroupVersion{Group: "policy", Version: "v1"}, "poddisruptionbudgets", "PodDisruptionBudget", true)
	return w
}

// add serves a namespaced built-in resource of client-go's scheme.
func (w *world) add(gv schema.GroupVersion, resource, kind string, status bool) {
	gvk := gv.WithKind(kind)
	w.res[gv.Version+"/"+resource] = &Resource{GVR: gv.WithResource(resource), GVK: gvk, Namespaced: true, Status: status, Store: w.tracker,
		New: func() (runtime.Object, error) {
			obj, err := scheme.Scheme.New(gvk)
			if err == nil {
				obj.GetObjectKind().SetGroupVersionKind(gvk)
			}
			return obj, err
		},
		Lookup: func(gvr schema.GroupVersionResource) (*Resource, error) {
			if r, ok := w.res[gvr.Version+"/"+gvr.Resource]; ok {
				return r, nil
			}
			return nil, apierrors.NewNotFound(gvr.GroupResource(), "")
		}}
}

func (w *world) do(t *testing.T, resource string, action clienttesting.Action) (runtime.Object, bool, error) {
	t.Helper()
	r, ok := w.res[resource]
	if !ok {
		t.Fatalf("no resource %s", resource)
	}
	return w.m.Do(r, action)
}

func (w *world) create(t *testing.T, resource string, obj runtime.Object) {
	t.Helper()
	r := w.res[resource]
	if _, _, err := w.m.Do(r, clienttesting.NewCreateAction(r.GVR, "ns", obj)); err != nil {
		t.Fatalf("create: %v", err)
	}
}

func (w *world) get(t *testing.T, resource, name string) runtime.Object {
	t.Helper()
	r := w.res[resource]
	obj, err := w.tracker.Get(r.GVR, "ns", name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

func webDeployment(replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To(replicas),
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
	}}
}

func TestScaleOfADeployment(t *testing.T) {
	w := newWorld(t)
	w.create(t, "v1/deployments", webDeployment(2))
	gvr := w.res["v1/deployments"].GVR
	got, err := w.m.Read(w.res["v1/deployments"], clienttesting.NewGetSubresourceAction(gvr, "ns", "scale", "web"))
	if err != nil {
		t.Fatal(err)
	}
	scale, ok := got.(*autoscalingv1.Scale)
	if !ok {
		t.Fatalf("get scale answered %T, want *autoscalingv1.Scale", got)
	}
	if scale.Spec.Replicas != 2 || scale.Status.Selector != "app=web" || scale.Name != "web" || scale.ResourceVersion != "1" || scale.UID == "" {
		t.Errorf("scale %+v", scale)
	}

	// An update sets the parent's spec.replicas, through the parent's
	// strategy: generation and resourceVersion change, status is kept.
	scale.Spec.Replicas = 5
	answer, changed, err := w.do(t, "v1/deployments", clienttesting.NewUpdateSubresourceAction(gvr, "scale", "ns", scale))
	if err != nil || !changed {
		t.Fatalf("update scale: changed %v, err %v", changed, err)
	}
	d := w.get(t, "v1/deployments", "web").(*appsv1.Deployment)
	if *d.Spec.Replicas != 5 || d.Generation != 2 || d.ResourceVersion != "2" {
		t.Errorf("deployment after the scale update: replicas %d generation %d resourceVersion %s; want 5, 2, 2", *d.Spec.Replicas, d.Generation, d.ResourceVersion)
	}
	if a := answer.(*autoscalingv1.Scale); a.Spec.Replicas != 5 || a.ResourceVersion != "2" {
		t.Errorf("the update's answer: %+v", a)
	}

	// The same replicas again: a no-op.
	scale.ResourceVersion = "2"
	if _, changed, err := w.do(t, "v1/deployments", clienttesting.NewUpdateSubresourceAction(gvr, "scale", "ns", scale)); err != nil || changed {
		t.Errorf("unchanged scale update: changed %v, err %v; want a no-op", changed, err)
	}

	// A stale resourceVersion is a Conflict on the parent.
	scale.ResourceVersion, scale.Spec.Replicas = "1", 7
	_, _, err = w.do(t, "v1/deployments", clienttesting.NewUpdateSubresourceAction(gvr, "scale", "ns", scale))
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `deployments.apps "web": the object has been modified`) {
		t.Errorf("stale scale update: %v; want the parent's Conflict", err)
	}

	// A merge patch of the scale.
	if _, _, err := w.do(t, "v1/deployments", clienttesting.NewPatchSubresourceAction(gvr, "ns", "web", types.MergePatchType, []byte(`{"spec":{"replicas":1}}`), "scale")); err != nil {
		t.Fatal(err)
	}
	if d := w.get(t, "v1/deployments", "web").(*appsv1.Deployment); *d.Spec.Replicas != 1 || d.Generation != 3 {
		t.Errorf("after the scale patch: replicas %d generation %d; want 1, 3", *d.Spec.Replicas, d.Generation)
	}

	// Negative replicas are invalid.
	scale.ResourceVersion, scale.Spec.Replicas = "", -1
	_, _, err = w.do(t, "v1/deployments", clienttesting.NewUpdateSubresourceAction(gvr, "scale", "ns", scale))
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`) {
		t.Errorf("negative replicas: %v", err)
	}
	// A missing parent is the parent's NotFound.
	_, err = w.m.Read(w.res["v1/deployments"], clienttesting.NewGetSubresourceAction(gvr, "ns", "scale", "nope"))
	if !apierrors.IsNotFound(err) {
		t.Errorf("scale of a missing deployment: %v", err)
	}
}

// apps/v1beta2 answers with its own Scale kind, so that its typed fake's
// cast does not panic.
func TestScaleOfAnOlderGroupVersion(t *testing.T) {
	w := newWorld(t)
	w.create(t, "v1beta2/deployments", &appsv1beta2.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: appsv1beta2.DeploymentSpec{
		Replicas: ptr.To(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}})
	r := w.res["v1beta2/deployments"]
	got, err := w.m.Read(r, clienttesting.NewGetSubresourceAction(r.GVR, "ns", "scale", "web"))
	if err != nil {
		t.Fatal(err)
	}
	s, ok := got.(*appsv1beta2.Scale)
	if !ok || s.Spec.Replicas != 3 || s.Status.TargetSelector != "app=web" || s.Status.Selector["app"] != "web" {
		t.Errorf("apps/v1beta2 scale: %#v", got)
	}
}

func TestScaleOfAReplicationController(t *testing.T) {
	w := newWorld(t)
	w.create(t, "v1/replicationcontrollers", &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "rc"},
		Spec: corev1.ReplicationControllerSpec{Replicas: ptr.To(int32(1)), Selector: map[string]string{"b": "2", "a": "1"}}})
	r := w.res["v1/replicationcontrollers"]
	got, err := w.m.Read(r, clienttesting.NewGetSubresourceAction(r.GVR, "ns", "scale", "rc"))
	if err != nil {
		t.Fatal(err)
	}
	if s := got.(*autoscalingv1.Scale); s.Status.Selector != "a=1,b=2" || s.Spec.Replicas != 1 {
		t.Errorf("rc scale: %+v", s)
	}
}

// A resource without a scale subresource answers with the server's 404.
func TestScaleOfAResourceWithout(t *testing.T) {
	w := newWorld(t)
	w.create(t, "v1/configmaps", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}})
	r := w.res["v1/configmaps"]
	_, err := w.m.Read(r, clienttesting.NewGetSubresourceAction(r.GVR, "ns", "scale", "cm"))
	if !apierrors.IsNotFound(err) || err.Error() != "the server could not find the requested resource" {
		t.Errorf("get configmaps/scale: %v; want the server's 404", err)
	}
	_, _, err = w.do(t, "v1/configmaps", clienttesting.NewPatchSubresourceAction(r.GVR, "ns", "cm", types.MergePatchType, []byte(`{"spec":{"replicas":1}}`), "scale"))
	if !apierrors.IsNotFound(err) {
		t.Errorf("patch configmaps/scale: %v; want the server's 404", err)
	}
}

// mapStore is a Store of unstructured objects.
type mapStore struct {
	objs map[string]*unstructured.Unstructured
}

func (s *mapStore) Get(gvr schema.GroupVersionResource, ns, name string, _ ...metav1.GetOptions) (runtime.Object, error) {
	if o, ok := s.objs[ns+"/"+name]; ok {
		return o.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
}

func (s *mapStore) List(schema.GroupVersionResource, schema.GroupVersionKind, string, ...metav1.ListOptions) (runtime.Object, error) {
	return &unstructured.UnstructuredList{}, nil
}

func (s *mapStore) Create(_ schema.GroupVersionResource, obj runtime.Object, ns string, _ ...metav1.CreateOptions) error {
	u := obj.(*unstructured.Unstructured)
	s.objs[ns+"/"+u.GetName()] = u.DeepCopy()
	return nil
}

func (s *mapStore) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, _ ...metav1.UpdateOptions) error {
	return s.Create(gvr, obj, ns)
}

func (s *mapStore) Delete(_ schema.GroupVersionResource, ns, name string, _ ...metav1.DeleteOptions) error {
	delete(s.objs, ns+"/"+name)
	return nil
}

// A custom resource whose CRD declares a scale subresource: the paths
// come from Resource.Scale.
func TestScaleOfACustomResource(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	r := &Resource{GVR: gvk.GroupVersion().WithResource("widgets"), GVK: gvk, Namespaced: true, Status: true, Custom: true,
		Store: &mapStore{objs: map[string]*unstructured.Unstructured{}},
		New: func() (runtime.Object, error) {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(gvk)
			return u, nil
		},
		Scale: &ScaleSubresource{SpecReplicasPath: ".spec.count", StatusReplicasPath: ".status.count", LabelSelectorPath: ".status.selector"}}
	m := NewModel(time.Now, 0)
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"count": int64(2)}}}
	if _, _, err := m.Do(r, clienttesting.NewCreateAction(r.GVR, "ns", obj)); err != nil {
		t.Fatal(err)
	}
	// The status the controller reports.
	st := &unstructured.Unstructured{}
	got, _ := r.Store.Get(r.GVR, "ns", "w")
	st.Object = got.(*unstructured.Unstructured).Object
	_ = unstructured.SetNestedField(st.Object, int64(1), "status", "count")
	_ = unstructured.SetNestedField(st.Object, "app=w", "status", "selector")
	if _, _, err := m.Do(r, clienttesting.NewUpdateSubresourceAction(r.GVR, "status", "ns", st)); err != nil {
		t.Fatal(err)
	}
	answer, err := m.Read(r, clienttesting.NewGetSubresourceAction(r.GVR, "ns", "scale", "w"))
	if err != nil {
		t.Fatal(err)
	}
	s := answer.(*autoscalingv1.Scale)
	want := autoscalingv1.ScaleSpec{Replicas: 2}
	if d := cmp.Diff(want, s.Spec); d != "" || s.Status.Replicas != 1 || s.Status.Selector != "app=w" {
		t.Errorf("custom scale %+v (spec -want +got: %s)", s, d)
	}
	if _, _, err := m.Do(r, clienttesting.NewPatchSubresourceAction(r.GVR, "ns", "w", types.MergePatchType, []byte(`{"spec":{"replicas":4}}`), "scale")); err != nil {
		t.Fatal(err)
	}
	got, _ = r.Store.Get(r.GVR, "ns", "w")
	if n, _, _ := unstructured.NestedInt64(got.(*unstructured.Unstructured).Object, "spec", "count"); n != 4 {
		t.Errorf("spec.count after the scale patch: %d, want 4", n)
	}
	// Custom resources refuse strategic merge patches, the scale too.
	_, _, err = m.Do(r, clienttesting.NewPatchSubresourceAction(r.GVR, "ns", "w", types.StrategicMergePatchType, []byte(`{"spec":{"replicas":4}}`), "scale"))
	if !apierrors.IsUnsupportedMediaType(err) {
		t.Errorf("strategic merge patch of a custom scale: %v; want 415", err)
	}
	// A parent without the spec replicas field: a patch that does not
	// set them is refused.
	noCount := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "empty"}}}
	if _, _, err := m.Do(r, clienttesting.NewCreateAction(r.GVR, "ns", noCount)); err != nil {
		t.Fatal(err)
	}
	_, _, err = m.Do(r, clienttesting.NewPatchSubresourceAction(r.GVR, "ns", "empty", types.MergePatchType, []byte(`{"metadata":{}}`), "scale"))
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `the spec replicas field ".spec.count" cannot be empty`) {
		t.Errorf("patch of an unset replicas field: %v", err)
	}
	// Without Scale, the custom resource has no scale subresource.
	r.Scale = nil
	if _, err := m.Read(r, clienttesting.NewGetSubresourceAction(r.GVR, "ns", "scale", "w")); !apierrors.IsNotFound(err) {
		t.Errorf("scale of a custom resource without one: %v", err)
	}
}

// An update of /scale that changes nothing is a no-op (the etcd3 store's
// no-op check: same resourceVersion, no watch event), also after writes
// that left the parent with what a round trip through the Scale's
// unstructured form does not keep as it was: managed fields with a time
// finer than a second (a server-side apply's), a custom resource's empty
// finalizers. The fuzzer found both (issue 34 item 4.2): a StatefulSet
// and a Widget got a new resourceVersion from the model where the server
// kept theirs.
func TestScaleUpdateThatChangesNothing(t *testing.T) {
	t.Run("statefulset with managed fields", func(t *testing.T) {
		w := newWorld(t)
		w.add(appsv1.SchemeGroupVersion, "statefulsets", "StatefulSet", true)
		ss := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "a", ManagedFields: []metav1.ManagedFieldsEntry{{
			Manager: "fuzz", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "apps/v1",
			Time:       ptr.To(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 123456789, time.UTC))),
			FieldsType: "FieldsV1", FieldsV1: newFieldsV1(`{"f:spec":{"f:replicas":{}}}`),
		}}}, Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}},
		}}
		w.create(t, "v1/statefulsets", ss)
		gvr := w.res["v1/statefulsets"].GVR
		for i, replicas := range []int32{2, 2, 2} {
			before := w.get(t, "v1/statefulsets", "a").(*appsv1.StatefulSet).ResourceVersion
			scale := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}, Spec: autoscalingv1.ScaleSpec{Replicas: replicas}}
			_, changed, err := w.do(t, "v1/statefulsets", clienttesting.NewUpdateSubresourceAction(gvr, "scale", "ns", scale))
			after := w.get(t, "v1/statefulsets", "a").(*appsv1.StatefulSet).ResourceVersion
			if err != nil || changed != (i == 0) || (after != before) != (i == 0) {
				t.Errorf("scale update %d to %d replicas: changed %v, resourceVersion %s -> %s, err %v; want a change the first time only", i, replicas, changed, before, after, err)
			}
		}
	})
	t.Run("custom resource with empty finalizers", func(t *testing.T) {
		gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
		r := &Resource{GVR: gvk.GroupVersion().WithResource("widgets"), GVK: gvk, Namespaced: true, Status: true, Custom: true,
			Store: &mapStore{objs: map[string]*unstructured.Unstructured{}},
			New: func() (runtime.Object, error) {
				u := &unstructured.Unstructured{}
				u.SetGroupVersionKind(gvk)
				return u, nil
			},
			Scale: &ScaleSubresource{SpecReplicasPath: ".spec.count", StatusReplicasPath: ".status.count"}}
		m := NewModel(func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }, 0)
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w", "finalizers": []any{"a/b"}}, "spec": map[string]any{"count": int64(1)}}}
		if _, _, err := m.Do(r, clienttesting.NewCreateAction(r.GVR, "ns", obj)); err != nil {
			t.Fatal(err)
		}
		// The last finalizer removed by a merge patch.
		if _, _, err := m.Do(r, clienttesting.NewPatchAction(r.GVR, "ns", "w", types.MergePatchType, []byte(`{"metadata":{"finalizers":[]}}`))); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			got, _ := r.Store.Get(r.GVR, "ns", "w")
			before := got.(*unstructured.Unstructured).GetResourceVersion()
			scale := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale",
				"metadata": map[string]any{"name": "w", "namespace": "ns", "resourceVersion": before}, "spec": map[string]any{"replicas": int64(3)}}}
			_, changed, err := m.Do(r, clienttesting.NewUpdateSubresourceAction(r.GVR, "scale", "ns", scale))
			got, _ = r.Store.Get(r.GVR, "ns", "w")
			after := got.(*unstructured.Unstructured).GetResourceVersion()
			if err != nil || changed != (i == 0) || (after != before) != (i == 0) {
				t.Errorf("scale update %d to 3: changed %v, resourceVersion %s -> %s, err %v; want a change the first time only", i, changed, before, after, err)
			}
		}
	})
}
