package apiserver

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// widgets is a custom resource served as unstructured objects.
func widgets() *Resource {
	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	return &Resource{GVR: gvk.GroupVersion().WithResource("widgets"), GVK: gvk, Namespaced: true, Status: true, Custom: true,
		Store: &mapStore{objs: map[string]*unstructured.Unstructured{}},
		New: func() (runtime.Object, error) {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(gvk)
			return u, nil
		},
		Scale: &ScaleSubresource{SpecReplicasPath: ".spec.size", StatusReplicasPath: ".status.size"}}
}

// A custom resource's metadata is what apiextensions-apiserver's schema
// coercer makes of it (a metav1.ObjectMeta and back): an update removing
// the last finalizer by sending `finalizers: []` stores no finalizers
// field, and sending it again changes nothing.
func TestCustomResourceMetadataIsCoerced(t *testing.T) {
	r := widgets()
	m := NewModel(time.Now, 0)
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "finalizers": []any{"example.com/f"}, "labels": map[string]any{}}, "spec": map[string]any{"size": int64(1)}}}
	if _, _, err := m.Do(r, clienttesting.NewCreateAction(r.GVR, "ns", obj)); err != nil {
		t.Fatal(err)
	}
	stored, _ := r.Store.Get(r.GVR, "ns", "w")
	if _, ok := stored.(*unstructured.Unstructured).Object["metadata"].(map[string]any)["labels"]; ok {
		t.Errorf("created with labels: {}: stored %v; want no labels field", stored)
	}
	for i := range 2 {
		cur, _ := r.Store.Get(r.GVR, "ns", "w")
		u := cur.(*unstructured.Unstructured)
		u.SetFinalizers([]string{})
		answer, changed, err := m.Do(r, clienttesting.NewUpdateAction(r.GVR, "ns", u))
		if err != nil {
			t.Fatal(err)
		}
		if want := i == 0; changed != want {
			t.Errorf("update %d sending finalizers: []: changed %v, want %v", i, changed, want)
		}
		stored, _ := r.Store.Get(r.GVR, "ns", "w")
		for what, obj := range map[string]runtime.Object{"stored": stored, "answer": answer} {
			md := obj.(*unstructured.Unstructured).Object["metadata"].(map[string]any)
			if f, ok := md["finalizers"]; ok {
				t.Errorf("update %d: %s object has finalizers: %v; want no field", i, what, f)
			}
		}
	}
}

// A typed custom resource's ObjectMeta is coerced the same way: an empty
// list or map is nil.
func TestTypedCustomResourceMetadataIsCoerced(t *testing.T) {
	w := newWorld(t)
	r := w.res["v1/configmaps"]
	r.Custom = true // a typed custom resource, as far as the model knows
	w.create(t, "v1/configmaps", configMap("c", "example.com/f"))
	cm := w.get(t, "v1/configmaps", "c").(*corev1.ConfigMap)
	cm.Finalizers = []string{}
	cm.Labels = map[string]string{}
	if _, _, err := w.do(t, "v1/configmaps", clienttesting.NewUpdateAction(r.GVR, "ns", cm)); err != nil {
		t.Fatal(err)
	}
	got := w.get(t, "v1/configmaps", "c").(*corev1.ConfigMap)
	if got.Finalizers != nil || got.Labels != nil {
		t.Errorf("stored finalizers %#v, labels %#v; want nil, as the server's coerced metadata", got.Finalizers, got.Labels)
	}
}

// The model holds times as the server does, whatever the object came
// from: a metav1.Time to the second, a metav1.MicroTime to the
// microsecond (what JSON keeps), in creates, updates and seeds; an update
// whose times differ from the stored ones below that precision changes
// nothing.
func TestServerTimes(t *testing.T) {
	w := newWorld(t)
	w.add(coordinationv1.SchemeGroupVersion, "leases", "Lease", false)
	w.add(appsv1.SchemeGroupVersion, "statefulsets", "StatefulSet", true)
	at := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)
	seconds, micros := metav1.NewTime(at.Truncate(time.Second)), metav1.NewMicroTime(at.Truncate(time.Microsecond))

	d := webDeployment(1)
	d.Spec.Template.CreationTimestamp = metav1.NewTime(at)
	w.create(t, "v1/deployments", d)
	got := w.get(t, "v1/deployments", "web").(*appsv1.Deployment)
	if !got.Spec.Template.CreationTimestamp.Time.Equal(seconds.Time) {
		t.Errorf("created template time %v; want %v", got.Spec.Template.CreationTimestamp, seconds)
	}
	got.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue,
		LastUpdateTime: metav1.NewTime(at), LastTransitionTime: metav1.NewTime(at)}}
	if _, _, err := w.do(t, "v1/deployments", clienttesting.NewUpdateSubresourceAction(got.GroupVersionKind().GroupVersion().WithResource("deployments"), "status", "ns", got)); err != nil {
		t.Fatal(err)
	}
	got = w.get(t, "v1/deployments", "web").(*appsv1.Deployment)
	want := []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, LastUpdateTime: seconds, LastTransitionTime: seconds}}
	if d := cmp.Diff(want, got.Status.Conditions); d != "" {
		t.Errorf("status conditions (-want +got):\n%s", d)
	}
	// The same times again, to the nanosecond: the server's no-op.
	got.Status.Conditions[0].LastUpdateTime = metav1.NewTime(at.Add(time.Millisecond))
	if _, changed, err := w.do(t, "v1/deployments", clienttesting.NewUpdateSubresourceAction(appsv1.SchemeGroupVersion.WithResource("deployments"), "status", "ns", got)); err != nil || changed {
		t.Errorf("update with times equal to the second: changed %v, err %v; want a no-op", changed, err)
	}

	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l"}, Spec: coordinationv1.LeaseSpec{RenewTime: ptr.To(metav1.NewMicroTime(at))}}
	w.create(t, "v1/leases", lease)
	if got := w.get(t, "v1/leases", "l").(*coordinationv1.Lease); !got.Spec.RenewTime.Time.Equal(micros.Time) {
		t.Errorf("lease renew time %v; want %v", got.Spec.RenewTime, micros)
	}

	// A seed, with a StatefulSet's claim templates (a slice of objects
	// with metadata).
	ss := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", CreationTimestamp: metav1.NewTime(at)},
		Spec: appsv1.StatefulSetSpec{VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "c", DeletionTimestamp: ptr.To(metav1.NewTime(at))}}}}}
	if err := w.m.Seed(w.res["v1/statefulsets"], ss, 1); err != nil {
		t.Fatal(err)
	}
	if !ss.CreationTimestamp.Time.Equal(seconds.Time) || !ss.Spec.VolumeClaimTemplates[0].DeletionTimestamp.Time.Equal(seconds.Time) {
		t.Errorf("seeded times %v, %v; want %v", ss.CreationTimestamp, ss.Spec.VolumeClaimTemplates[0].DeletionTimestamp, seconds)
	}
}

// ServerTimes walks maps of structs, pointers and arrays, and leaves
// unstructured objects alone.
func TestServerTimesWalk(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.UTC)
	type item struct{ T metav1.Time }
	type holder struct {
		runtime.Object
		ByName map[string]item
		Ptrs   []*metav1.MicroTime
		Fixed  [1]item
		Skip   metav1.Time `json:"-"`
	}
	h := &holder{ByName: map[string]item{"a": {metav1.NewTime(at)}}, Ptrs: []*metav1.MicroTime{nil, ptr.To(metav1.NewMicroTime(at))},
		Fixed: [1]item{{metav1.NewTime(at)}}, Skip: metav1.NewTime(at)}
	ServerTimes(h)
	want := &holder{ByName: map[string]item{"a": {metav1.NewTime(at.Truncate(time.Second))}}, Ptrs: []*metav1.MicroTime{nil, ptr.To(metav1.NewMicroTime(at.Truncate(time.Microsecond)))},
		Fixed: [1]item{{metav1.NewTime(at.Truncate(time.Second))}}, Skip: metav1.NewTime(at)}
	if d := cmp.Diff(want, h); d != "" {
		t.Errorf("ServerTimes (-want +got):\n%s", d)
	}
	u := &unstructured.Unstructured{Object: map[string]any{"t": at.Format(time.RFC3339Nano)}}
	ServerTimes(u)
	if u.Object["t"] != at.Format(time.RFC3339Nano) {
		t.Errorf("unstructured time changed: %v", u.Object["t"])
	}
}

// coercedMetadata, the shortcut of coerceCustomMetadata, says true only of
// metadata the conversion leaves as it is.
func TestCoercedMetadata(t *testing.T) {
	mf := func(edit func(map[string]any)) map[string]any {
		e := map[string]any{"manager": "m", "operation": "Apply", "apiVersion": "example.com/v1", "time": "2026-01-01T00:00:00Z",
			"fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:spec": map[string]any{"f:size": map[string]any{}}}}
		if edit != nil {
			edit(e)
		}
		return e
	}
	owner := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "c", "uid": "u", "controller": true}
	base := func() map[string]any {
		return map[string]any{"name": "w", "namespace": "ns", "uid": "u", "resourceVersion": "3", "generation": int64(2),
			"creationTimestamp": "2026-01-01T00:00:00Z", "labels": map[string]any{"a": "b"}, "annotations": map[string]any{"a": "b"},
			"finalizers": []any{"x/y"}, "ownerReferences": []any{owner}, "managedFields": []any{mf(nil)}}
	}
	cases := []struct {
		name    string
		edit    func(map[string]any)
		coerced bool
	}{
		{"canonical", nil, true},
		{"being deleted", func(m map[string]any) {
			m["deletionTimestamp"], m["deletionGracePeriodSeconds"] = "2026-01-01T00:00:01Z", int64(0)
		}, true},
		{"empty finalizers", func(m map[string]any) { m["finalizers"] = []any{} }, false},
		{"empty labels", func(m map[string]any) { m["labels"] = map[string]any{} }, false},
		{"null annotations", func(m map[string]any) { m["annotations"] = nil }, false},
		{"empty name", func(m map[string]any) { m["generateName"] = "" }, false},
		{"generation 0", func(m map[string]any) { m["generation"] = int64(0) }, false},
		{"generation as a float", func(m map[string]any) { m["generation"] = float64(2) }, false},
		{"nanoseconds", func(m map[string]any) { m["creationTimestamp"] = "2026-01-01T00:00:00.5Z" }, false},
		{"another zone", func(m map[string]any) { m["creationTimestamp"] = "2026-01-01T01:00:00+01:00" }, false},
		{"null time", func(m map[string]any) { m["creationTimestamp"] = nil }, false},
		{"unknown field", func(m map[string]any) { m["color"] = "red" }, false},
		{"a label that is not a string", func(m map[string]any) { m["labels"] = map[string]any{"a": int64(1)} }, false},
		{"owner without uid", func(m map[string]any) {
			m["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "c"}}
		}, false},
		{"managed fields time with nanoseconds", func(m map[string]any) {
			m["managedFields"] = []any{mf(func(e map[string]any) { e["time"] = "2026-01-01T00:00:00.1Z" })}
		}, false},
		{"managed fields empty subresource", func(m map[string]any) {
			m["managedFields"] = []any{mf(func(e map[string]any) { e["subresource"] = "" })}
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			md := base()
			if c.edit != nil {
				c.edit(md)
			}
			if got := coercedMetadata(md); got != c.coerced {
				t.Errorf("coercedMetadata: %v, want %v", got, c.coerced)
			}
			in := runtime.DeepCopyJSON(map[string]any{"metadata": md})
			out := &unstructured.Unstructured{Object: map[string]any{"metadata": runtime.DeepCopyJSONValue(md)}}
			// The conversion itself, without the shortcut.
			om := &metav1.ObjectMeta{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(out.Object["metadata"].(map[string]any), om); err != nil {
				if c.coerced {
					t.Fatalf("coerced metadata does not convert: %v", err)
				}
				return
			}
			conv, err := runtime.DefaultUnstructuredConverter.ToUnstructured(om)
			if err != nil {
				t.Fatal(err)
			}
			if same := cmp.Equal(in["metadata"], any(conv)); c.coerced && !same {
				t.Errorf("coercedMetadata says coerced, the conversion changes it (-in +out):\n%s", cmp.Diff(in["metadata"], any(conv)))
			} else if !c.coerced && same {
				t.Errorf("the conversion keeps it: coercedMetadata could say true")
			}
		})
	}
}

// A Secret's stringData is merged into its data, overwriting its keys, and
// not stored, as kube-apiserver's decoding does; found by kube's
// TestModelPreparesAsTheStrategies.
func TestSecretStringDataIsMerged(t *testing.T) {
	w := newWorld(t)
	w.add(corev1.SchemeGroupVersion, "secrets", "Secret", false)
	w.create(t, "v1/secrets", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"},
		Data: map[string][]byte{"a": []byte("1"), "b": []byte("2")}, StringData: map[string]string{"b": "3", "c": "4"}})
	got := w.get(t, "v1/secrets", "s").(*corev1.Secret)
	want := map[string][]byte{"a": []byte("1"), "b": []byte("3"), "c": []byte("4")}
	if diff := cmp.Diff(want, got.Data); diff != "" || got.StringData != nil {
		t.Errorf("the stored Secret: stringData %v, data (-want +got):\n%s", got.StringData, diff)
	}
	// Sending the same stringData again changes nothing.
	again := got.DeepCopy()
	again.StringData = map[string]string{"c": "4"}
	if _, changed, err := w.do(t, "v1/secrets", clienttesting.NewUpdateAction(w.res["v1/secrets"].GVR, "ns", again)); err != nil || changed {
		t.Errorf("an update whose stringData is the data already: changed %v, err %v; want a no-op", changed, err)
	}
}
