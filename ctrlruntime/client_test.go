package ctrlruntime_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/ctrlruntime"
	webappv1 "github.com/ctrltest/ctrltest/ctrlruntime/examples/webapp/api/v1"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var ctx = context.Background()

func deploy(name string, replicas int32, labels map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: labels},
		Spec:       appsv1.DeploymentSpec{Replicas: &replicas},
	}
}

func pod(ns, name, node string, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}, Spec: corev1.PodSpec{NodeName: node}}
}

func verbs(as []actions.Action) []string {
	var out []string
	for _, a := range as {
		s := a.Verb + " " + a.Resource.Resource
		if a.Subresource != "" {
			s += "/" + a.Subresource
		}
		out = append(out, s)
	}
	return out
}

func TestGetRepresentations(t *testing.T) {
	f := fixture.New(t, fixture.WithObjects(deploy("web", 2, map[string]string{"app": "web"})))
	c := ctrlruntime.NewClient(f)
	key := client.ObjectKey{Namespace: "default", Name: "web"}

	var d appsv1.Deployment
	if err := c.Get(ctx, key, &d); err != nil {
		t.Fatal(err)
	}
	if *d.Spec.Replicas != 2 || d.UID == "" || d.ResourceVersion == "" || d.Kind != "" {
		t.Errorf("typed Get: replicas %d, uid %q, resourceVersion %q, kind %q; want 2, a uid and resourceVersion from the model, no kind (as from a real server)", *d.Spec.Replicas, d.UID, d.ResourceVersion, d.Kind)
	}

	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apps/v1")
	u.SetKind("Deployment")
	if err := c.Get(ctx, key, u); err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); r != 2 || u.GetKind() != "Deployment" || u.GetUID() != d.UID {
		t.Errorf("unstructured Get: replicas %d, kind %q, uid %q; want 2, Deployment, %q", r, u.GetKind(), u.GetUID(), d.UID)
	}

	p := &metav1.PartialObjectMetadata{}
	p.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("Deployment"))
	if err := c.Get(ctx, key, p); err != nil {
		t.Fatal(err)
	}
	if p.Labels["app"] != "web" || p.UID != d.UID || p.Kind != "Deployment" {
		t.Errorf("metadata Get: labels %v, uid %q, kind %q", p.Labels, p.UID, p.Kind)
	}

	if diff := cmp.Diff([]string{"get deployments", "get deployments", "get deployments"}, verbs(f.Requests())); diff != "" {
		t.Errorf("recorded requests (-want +got):\n%s", diff)
	}

	err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "missing"}, &d)
	if !apierrors.IsNotFound(err) {
		t.Errorf("Get of a missing object: %v, want NotFound", err)
	}
}

func TestList(t *testing.T) {
	web := map[string]string{"app": "web"}
	f := fixture.New(t, fixture.WithObjects(
		pod("default", "a", "node-1", web), pod("default", "b", "node-2", web),
		pod("default", "c", "node-1", map[string]string{"app": "db"}), pod("other", "d", "node-1", web)))
	c := ctrlruntime.NewClient(f, ctrlruntime.WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string {
		return []string{o.(*corev1.Pod).Spec.NodeName}
	}))
	names := func(l client.ObjectList) []string {
		items, err := meta.ExtractList(l)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range items {
			m, _ := meta.Accessor(it)
			out = append(out, m.GetNamespace()+"/"+m.GetName())
		}
		return out
	}
	tests := []struct {
		name string
		list client.ObjectList
		opts []client.ListOption
		want []string
	}{
		{"all namespaces", &corev1.PodList{}, nil, []string{"default/a", "default/b", "default/c", "other/d"}},
		{"namespace and labels", &corev1.PodList{}, []client.ListOption{client.InNamespace("default"), client.MatchingLabels(web)}, []string{"default/a", "default/b"}},
		{"an indexed field", &corev1.PodList{}, []client.ListOption{client.MatchingFields{"spec.nodeName": "node-1"}}, []string{"default/a", "default/c", "other/d"}},
		{"metadata.name", &corev1.PodList{}, []client.ListOption{client.MatchingFields{"metadata.name": "b"}}, []string{"default/b"}},
		{"unstructured", &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "PodList"}}, []client.ListOption{client.InNamespace("other")}, []string{"other/d"}},
		{"metadata only", &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}}, []client.ListOption{client.MatchingLabels{"app": "db"}}, []string{"default/c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := c.List(ctx, tt.list, tt.opts...); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, names(tt.list)); diff != "" {
				t.Errorf("listed (-want +got):\n%s", diff)
			}
		})
	}

	err := c.List(ctx, &corev1.PodList{}, client.MatchingFields{"status.phase": "Running"})
	if err == nil || !strings.Contains(err.Error(), `ctrlruntime.WithIndex(<a Pod>, "status.phase", extract)`) {
		t.Errorf("List by an unindexed field: %v; want an error naming the WithIndex call to add", err)
	}
}

func TestWrites(t *testing.T) {
	f := fixture.New(t, fixture.WithObjects(deploy("web", 1, nil), deploy("db", 1, map[string]string{"tier": "data"}), deploy("cache", 1, map[string]string{"tier": "data"})))
	c := ctrlruntime.NewClient(f)

	created := deploy("", 1, nil)
	created.GenerateName = "api-"
	if err := c.Create(ctx, created); err != nil {
		t.Fatal(err)
	}
	if created.Name == "" || created.UID == "" || created.Generation != 1 {
		t.Errorf("Create: name %q uid %q generation %d; want the model's answer read back", created.Name, created.UID, created.Generation)
	}

	var web appsv1.Deployment
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &web); err != nil {
		t.Fatal(err)
	}
	stale := web.DeepCopy()
	web.Spec.Replicas = new(int32(3))
	if err := c.Update(ctx, &web); err != nil {
		t.Fatal(err)
	}
	if web.Generation != 2 {
		t.Errorf("Update: generation %d, want 2 (a spec change)", web.Generation)
	}
	stale.Spec.Replicas = new(int32(5))
	if err := c.Update(ctx, stale); !apierrors.IsConflict(err) {
		t.Errorf("Update with a stale resourceVersion: %v, want Conflict", err)
	}

	patches := []struct {
		name  string
		patch func(d *appsv1.Deployment) client.Patch
		want  int32
	}{
		{"merge", func(d *appsv1.Deployment) client.Patch {
			p := client.MergeFrom(d.DeepCopy())
			d.Spec.Replicas = new(int32(4))
			return p
		}, 4},
		{"strategic merge", func(d *appsv1.Deployment) client.Patch {
			p := client.StrategicMergeFrom(d.DeepCopy())
			d.Spec.Replicas = new(int32(6))
			return p
		}, 6},
		{"JSON", func(*appsv1.Deployment) client.Patch {
			return client.RawPatch(types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/replicas","value":7}]`))
		}, 7},
	}
	for _, p := range patches {
		if err := c.Patch(ctx, &web, p.patch(&web)); err != nil {
			t.Fatalf("%s patch: %v", p.name, err)
		}
		if *web.Spec.Replicas != p.want {
			t.Errorf("%s patch: replicas %d, want %d", p.name, *web.Spec.Replicas, p.want)
		}
	}

	ac := appsv1ac.Deployment("applied", "default").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(2))
	if err := c.Apply(ctx, ac, client.FieldOwner("test"), client.ForceOwnership); err != nil {
		t.Fatal(err)
	}
	if ac.UID == nil || *ac.UID == "" {
		t.Errorf("Apply: the answer was not read back into the apply configuration: %+v", ac.ObjectMetaApplyConfiguration)
	}
	if got := f.Object(deploy("applied", 0, nil)); got == nil || *got.(*appsv1.Deployment).Spec.Replicas != 2 {
		t.Errorf("Apply: the world holds %v, want a Deployment with 2 replicas", got)
	}

	if err := c.DeleteAllOf(ctx, &appsv1.Deployment{}, client.InNamespace("default"), client.MatchingLabels{"tier": "data"}); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, &web); err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, o := range f.Objects(&appsv1.Deployment{}) {
		left = append(left, o.(*appsv1.Deployment).Name)
	}
	if diff := cmp.Diff([]string{created.Name, "applied"}, left); diff != "" {
		t.Errorf("after DeleteAllOf and Delete (-want +got):\n%s", diff)
	}
	want := []string{"create deployments", "get deployments", "update deployments", "update deployments", "patch deployments", "patch deployments", "patch deployments", "patch deployments", "delete-collection deployments", "delete deployments"}
	if diff := cmp.Diff(want, verbs(f.Requests())); diff != "" {
		t.Errorf("recorded requests (-want +got):\n%s", diff)
	}
}

func TestStatusAndSubresources(t *testing.T) {
	f := fixture.New(t, fixture.WithObjects(deploy("web", 1, nil)))
	c := ctrlruntime.NewClient(f)
	var d appsv1.Deployment
	if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &d); err != nil {
		t.Fatal(err)
	}
	d.Status.AvailableReplicas = 1
	d.Spec.Replicas = new(int32(9)) // a status write drops spec changes
	if err := c.Status().Update(ctx, &d); err != nil {
		t.Fatal(err)
	}
	if d.Status.AvailableReplicas != 1 || *d.Spec.Replicas != 1 {
		t.Errorf("Status().Update: available %d, replicas %d; want 1 and the stored 1 (status writes keep the spec)", d.Status.AvailableReplicas, *d.Spec.Replicas)
	}
	p := client.MergeFrom(d.DeepCopy())
	d.Status.ReadyReplicas = 1
	if err := c.SubResource("status").Patch(ctx, &d, p); err != nil {
		t.Fatal(err)
	}
	got := f.Object(&d).(*appsv1.Deployment)
	if got.Status.ReadyReplicas != 1 {
		t.Errorf("status patch: the world holds ready %d, want 1", got.Status.ReadyReplicas)
	}
	if diff := cmp.Diff([]string{"get deployments", "update deployments/status", "patch deployments/status"}, verbs(f.Requests())); diff != "" {
		t.Errorf("recorded requests (-want +got):\n%s", diff)
	}
}

func TestReactorsAndFailures(t *testing.T) {
	f := fixture.New(t, fixture.WithReactor("create", "deployments", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(appsv1.Resource("deployments"), "web", errors.New("quota"))
	}))
	c := ctrlruntime.NewClient(f)
	if err := c.Create(ctx, deploy("web", 1, nil)); !apierrors.IsForbidden(err) {
		t.Errorf("Create with a reactor that refuses it: %v, want Forbidden", err)
	}
	f.InjectFault(fixture.Fault{Verb: "delete", Resource: "configmaps", Err: func(records.Request) error { return apierrors.NewInternalError(errors.New("boom")) }})
	if err := c.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}}); !apierrors.IsInternalError(err) {
		t.Errorf("Delete with an induced failure: %v, want InternalError", err)
	}
}

func TestUnregisteredType(t *testing.T) {
	f := fixture.New(t) // WebApps are not registered
	c := ctrlruntime.NewClient(f)
	err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &webappv1.WebApp{})
	if err == nil || !strings.Contains(err.Error(), "fixture.WithTypes") {
		t.Errorf("Get of an unregistered type: %v; want an error that names fixture.WithTypes", err)
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("example.com/v1")
	u.SetKind("Thing")
	if err := c.Get(ctx, client.ObjectKey{Name: "x"}, u); err == nil || !meta.IsNoMatchError(err) {
		t.Errorf("Get of an unknown kind: %v; want a no-match error", err)
	}
	if err := c.Update(ctx, &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}}); err == nil || !strings.Contains(err.Error(), "metadata only") {
		t.Errorf("Update of a PartialObjectMetadata: %v; want an error", err)
	}
}

func TestWatch(t *testing.T) {
	f := fixture.New(t)
	c := ctrlruntime.NewClient(f)
	typed, err := c.Watch(ctx, &appsv1.DeploymentList{}, client.InNamespace("default"))
	if err != nil {
		t.Fatal(err)
	}
	defer typed.Stop()
	untyped, err := c.Watch(ctx, &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "apps/v1", "kind": "DeploymentList"}})
	if err != nil {
		t.Fatal(err)
	}
	defer untyped.Stop()
	if err := c.Create(ctx, deploy("web", 1, nil)); err != nil {
		t.Fatal(err)
	}
	e := <-typed.ResultChan()
	if d, ok := e.Object.(*appsv1.Deployment); e.Type != watch.Added || !ok || d.Name != "web" {
		t.Errorf("typed watch: %v %T, want ADDED *appsv1.Deployment web", e.Type, e.Object)
	}
	e = <-untyped.ResultChan()
	if u, ok := e.Object.(*unstructured.Unstructured); e.Type != watch.Added || !ok || u.GetName() != "web" || u.GetKind() != "Deployment" {
		t.Errorf("unstructured watch: %v %T, want ADDED *unstructured.Unstructured Deployment web", e.Type, e.Object)
	}
}

func TestUnstructuredWrites(t *testing.T) {
	f := fixture.New(t)
	c := ctrlruntime.NewClient(f)
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"namespace": "default", "name": "web"},
		"spec":     map[string]any{"replicas": int64(1)},
	}}
	if err := c.Create(ctx, u); err != nil {
		t.Fatal(err)
	}
	if u.GetUID() == "" || u.GetKind() != "Deployment" {
		t.Errorf("unstructured Create: uid %q kind %q; want the answer read back in the caller's representation", u.GetUID(), u.GetKind())
	}
	if err := unstructured.SetNestedField(u.Object, int64(4), "status", "availableReplicas"); err != nil {
		t.Fatal(err)
	}
	if err := c.Status().Update(ctx, u); err != nil {
		t.Fatal(err)
	}
	if got := f.Object(deploy("web", 0, nil)).(*appsv1.Deployment); got.Status.AvailableReplicas != 4 {
		t.Errorf("unstructured status update: the world holds %d available replicas, want 4", got.Status.AvailableReplicas)
	}
	bad := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"namespace": "default", "name": "bad"},
		"spec":     map[string]any{"replicas": "many"},
	}}
	if err := c.Create(ctx, bad); !apierrors.IsBadRequest(err) {
		t.Errorf("an unstructured object that does not convert: %v, want BadRequest", err)
	}
}
