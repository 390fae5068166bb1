package semantics

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/cache"

	foov1alpha1 "github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/fixture/adapter"
	gatewayv1alpha1 "github.com/ctrltest/ctrltest/internal/testapi/apis/gateway/v1alpha1"
	"github.com/ctrltest/ctrltest/parity"
)

// dynamicClient is the fixture's dynamic client of gvr in ns, seen as a
// typed client of T: objects go out unstructured and come back typed, so
// that every sequence runs through it unchanged.
func dynamicClient[T runtime.Object](f *fixture.Fixture, gvr schema.GroupVersionResource, ns string) *client {
	rc := f.Dynamic().Resource(gvr).Namespace(ns)
	typ := reflect.TypeFor[T]().Elem()
	out := func(u *unstructured.Unstructured, err error) (runtime.Object, error) {
		if err != nil {
			return nil, err
		}
		obj := reflect.New(typ).Interface().(runtime.Object)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
			return nil, fmt.Errorf("semantics: the dynamic client's answer as %v: %v", typ, err)
		}
		return obj, nil
	}
	in := func(obj runtime.Object) *unstructured.Unstructured {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			panic(err) // the sequences' own typed objects
		}
		u := &unstructured.Unstructured{Object: m}
		kinds, _, err := f.Scheme().ObjectKinds(obj)
		if err != nil {
			panic(err)
		}
		u.SetGroupVersionKind(kinds[0])
		return u
	}
	return &client{
		get: func(ctx context.Context, name string) (runtime.Object, error) {
			return out(rc.Get(ctx, name, metav1.GetOptions{}))
		},
		create: func(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
			return out(rc.Create(ctx, in(obj), metav1.CreateOptions{}))
		},
		update: func(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
			return out(rc.Update(ctx, in(obj), metav1.UpdateOptions{}))
		},
		updateStatus: func(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
			return out(rc.UpdateStatus(ctx, in(obj), metav1.UpdateOptions{}))
		},
		patch: func(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (runtime.Object, error) {
			return out(rc.Patch(ctx, name, pt, data, opts, subresources...))
		},
		delete: func(ctx context.Context, name string, opts metav1.DeleteOptions) error {
			return rc.Delete(ctx, name, opts)
		},
		deleteCollection: rc.DeleteCollection,
	}
}

// metadataClient is the fixture's metadata client of gvr in ns; it has no
// create nor update: typed creates objects.
func metadataClient(f *fixture.Fixture, gvr schema.GroupVersionResource, ns string, typed *client) *client {
	rc := f.Metadata().Resource(gvr).Namespace(ns)
	out := func(p *metav1.PartialObjectMetadata, err error) (runtime.Object, error) {
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	return &client{
		get: func(ctx context.Context, name string) (runtime.Object, error) {
			return out(rc.Get(ctx, name, metav1.GetOptions{}))
		},
		create: typed.create,
		patch: func(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (runtime.Object, error) {
			return out(rc.Patch(ctx, name, pt, data, opts, subresources...))
		},
		delete: func(ctx context.Context, name string, opts metav1.DeleteOptions) error {
			return rc.Delete(ctx, name, opts)
		},
		deleteCollection: rc.DeleteCollection,
	}
}

// metadataRequests is what a controller does through the metadata client:
// reads, patches of the metadata, deletes with a finalizer, a
// delete-collection. The objects are created with the typed client.
func metadataRequests(r *runner) {
	c, ctx := r.c, r.ctx
	merge := func(body string) func() (runtime.Object, error) {
		return func() (runtime.Object, error) {
			return c.patch(ctx, "obj", types.MergePatchType, []byte(body), metav1.PatchOptions{})
		}
	}
	r.step("create (typed client)", "obj", func() (runtime.Object, error) { return c.create(ctx, r.res.object("obj")) })
	r.step("get", "obj", func() (runtime.Object, error) { return c.get(ctx, "obj") })
	r.step("get an absent object", "absent", func() (runtime.Object, error) { return c.get(ctx, "absent") })
	r.step("merge patch a label", "obj", merge(`{"metadata":{"labels":{"meta":"yes"}}}`))
	r.step("merge patch the label again, unchanged", "obj", merge(`{"metadata":{"labels":{"meta":"yes"}}}`))
	r.step("JSON patch an annotation", "obj", func() (runtime.Object, error) {
		return c.patch(ctx, "obj", types.JSONPatchType, []byte(`[{"op":"add","path":"/metadata/annotations","value":{"meta":"yes"}}]`), metav1.PatchOptions{})
	})
	r.step("merge patch a finalizer", "obj", merge(`{"metadata":{"finalizers":["`+finalizer+`"]}}`))
	r.step("delete, finalizer pending", "obj", func() (runtime.Object, error) { return nil, c.delete(ctx, "obj", background) })
	r.step("merge patch removing the finalizer", "obj", merge(`{"metadata":{"finalizers":null}}`))
	for _, name := range []string{"in-1", "in-2"} {
		r.step("create (typed client)", name, func() (runtime.Object, error) {
			obj := r.res.object(name)
			r.meta(obj).GetLabels()["set"] = "in"
			return c.create(ctx, obj)
		})
	}
	r.step("delete collection set=in", "in-1", func() (runtime.Object, error) {
		return nil, c.deleteCollection(ctx, background, metav1.ListOptions{LabelSelector: "set=in"})
	})
}

// TestClientForms: the dynamic and metadata clients answer in the
// server's forms (type meta, list kinds) and with its errors.
func TestClientForms(t *testing.T) {
	srv := parity.Shared(t)
	fakes := clientForms(t)
	server := clientForms(t, adapter.WithServer(srv))
	if d := cmp.Diff(fakes, server); d != "" {
		t.Errorf("the clients' answers differ (-fakes +server):\n%s", d)
	}
	t.Logf("forms:\n%s", strings.Join(fakes, "\n"))
}

// clientForms makes a Deployment, then describes what each client
// answers about it, in one sync of "default/web".
func clientForms(t *testing.T, opts ...fixture.Option) []string {
	t.Helper()
	f := fixture.New(t, append(options(), opts...)...)
	deployments := appsv1.SchemeGroupVersion.WithResource("deployments")
	var forms []string
	add := func(what string, obj runtime.Object, err error) {
		if err != nil {
			forms = append(forms, fmt.Sprintf("%s: %s", what, errText(err)))
			return
		}
		forms = append(forms, fmt.Sprintf("%s: %T %s", what, obj, obj.GetObjectKind().GroupVersionKind()))
	}
	sync := func(ctx context.Context, key string) error {
		ns, _, _ := cache.SplitMetaNamespaceKey(key)
		if _, err := f.Kube().AppsV1().Deployments(ns).Create(ctx, deploymentObject("web").(*appsv1.Deployment), metav1.CreateOptions{}); err != nil {
			return err
		}
		dyn := f.Dynamic().Resource(deployments).Namespace(ns)
		md := f.Metadata().Resource(deployments).Namespace(ns)
		u, err := dyn.Get(ctx, "web", metav1.GetOptions{})
		add("dynamic get", u, err)
		ul, err := dyn.List(ctx, metav1.ListOptions{})
		add("dynamic list", ul, err)
		if err == nil {
			for _, it := range ul.Items {
				add("dynamic list item", &it, nil)
			}
		}
		p, err := md.Get(ctx, "web", metav1.GetOptions{})
		add("metadata get", p, err)
		pl, err := md.List(ctx, metav1.ListOptions{})
		add("metadata list", pl, err)
		if err == nil {
			for _, it := range pl.Items {
				add("metadata list item", &it, nil)
			}
		}
		p, err = md.Patch(ctx, "web", types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}}}`), metav1.PatchOptions{})
		add("metadata patch", p, err)
		_, err = dyn.Get(ctx, "absent", metav1.GetOptions{})
		add("dynamic get of an absent object", nil, err)
		_, err = f.Dynamic().Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}).Namespace(ns).Get(ctx, "x", metav1.GetOptions{})
		add("dynamic get of an unserved resource", nil, err)
		cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}}}
		_, err = dyn.Create(ctx, cm, metav1.CreateOptions{})
		add("dynamic create of a ConfigMap in deployments", nil, err)
		all := f.Dynamic().Resource(deployments)
		_, err = all.Get(ctx, "web", metav1.GetOptions{})
		add("dynamic get of a namespaced object without its namespace", nil, err)
		_, err = all.Create(ctx, deploymentUnstructured(f), metav1.CreateOptions{})
		add("dynamic create of a namespaced object without a namespace", nil, err)
		_, err = f.Metadata().Resource(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}).Namespace(ns).Get(ctx, "n", metav1.GetOptions{})
		add("metadata get of a cluster-scoped resource in a namespace", nil, err)
		_, err = f.Dynamic().Resource(schema.GroupVersionResource{Version: "v1", Resource: "nodes"}).Get(ctx, "absent", metav1.GetOptions{})
		add("dynamic get of an absent node", nil, err)
		return nil
	}
	res := fixture.Sync(f, sync, "default/web")
	if res.Err != nil {
		t.Fatalf("clientForms: %v", res.Err)
	}
	// The requests, refused ones included, as recorded.
	for _, a := range res.All {
		forms = append(forms, "recorded: "+a.String())
	}
	return forms
}

// discoveryKnown are the resources whose discovery differs, with the
// reason.
var discoveryKnown = map[string]string{
	"v1 componentstatuses": "its typed client has every verb; the server serves get and list only",
	"v1 services":          "client-go's ServiceInterface has no DeleteCollection (its concrete client has); the server serves it",
}

// TestDiscoveryMatchesServer: the fixture's discovery client lists each
// registered resource of the suite's groups, and their status, scale and
// eviction subresources, as kube-apiserver does (name, singular name,
// scope, group, version, kind, verbs; the server lists more resources).
// Every subresource the fixture lists must be the server's.
func TestDiscoveryMatchesServer(t *testing.T) {
	srv := parity.Shared(t)
	real, err := discovery.NewDiscoveryClientForConfig(srv.ClientConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	f := fixture.New(t, options()...)
	for _, gv := range []string{"v1", "apps/v1", "batch/v1", foov1alpha1.SchemeGroupVersion.String(), gatewayv1alpha1.SchemeGroupVersion.String()} {
		fake, err := f.Discovery().ServerResourcesForGroupVersion(gv)
		if err != nil {
			t.Fatalf("fixture discovery of %s: %v", gv, err)
		}
		onServer, err := real.ServerResourcesForGroupVersion(gv)
		if err != nil {
			t.Fatalf("server discovery of %s: %v", gv, err)
		}
		served := map[string]metav1.APIResource{}
		for _, r := range onServer.APIResources {
			served[r.Name] = r
		}
		for _, r := range fake.APIResources {
			s, ok := served[r.Name]
			if !ok { // a CRD of the test API the server does not install
				t.Logf("%s: the server does not serve %s", gv, r.Name)
				continue
			}
			if reason, ok := discoveryKnown[gv+" "+r.Name]; ok {
				t.Logf("%s %s: not compared: %s", gv, r.Name, reason)
				continue
			}
			want := metav1.APIResource{Name: s.Name, SingularName: s.SingularName, Namespaced: s.Namespaced, Group: s.Group, Version: s.Version, Kind: s.Kind, Verbs: slices.Sorted(slices.Values(s.Verbs))}
			got := metav1.APIResource{Name: r.Name, SingularName: r.SingularName, Namespaced: r.Namespaced, Group: r.Group, Version: r.Version, Kind: r.Kind, Verbs: slices.Sorted(slices.Values(r.Verbs))}
			if strings.Contains(r.Name, "/") { // the server names no singular of a subresource
				want.SingularName, got.SingularName = "", ""
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s %s (-server +fixture):\n%s", gv, r.Name, d)
			}
		}
		// The server's status, scale and eviction subresources of the
		// resources the fixture lists are the fixture's too.
		listed := map[string]bool{}
		for _, r := range fake.APIResources {
			listed[r.Name] = true
		}
		for _, r := range onServer.APIResources {
			parent, sub, ok := strings.Cut(r.Name, "/")
			if ok && listed[parent] && !listed[r.Name] && (sub == "status" || sub == "scale" || sub == "eviction") {
				t.Errorf("%s: the server lists %s, the fixture does not", gv, r.Name)
			}
		}
	}
}

// deploymentUnstructured is a valid Deployment "other", unstructured.
func deploymentUnstructured(f *fixture.Fixture) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(deploymentObject("other"))
	if err != nil {
		panic(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("Deployment"))
	return u
}
