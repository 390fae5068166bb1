package resources

import (
	"reflect"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	kubescheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/google/go-cmp/cmp"

	"github.com/ctrltest/ctrltest/internal/kubeminor"

	samplev1alpha1 "github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/controller/generated/clientset/versioned"
	samplescheme "github.com/ctrltest/ctrltest/controller/generated/clientset/versioned/scheme"
)

func TestKube(t *testing.T) {
	tests := []struct {
		obj        any
		gvr        schema.GroupVersionResource
		namespaced bool
	}{
		{&appsv1.Deployment{}, appsv1.SchemeGroupVersion.WithResource("deployments"), true},
		//lint:ignore SA1019 Endpoints is the classic plural that must not become "endpointses".
		{&corev1.Endpoints{}, corev1.SchemeGroupVersion.WithResource("endpoints"), true},
		{&corev1.Node{}, corev1.SchemeGroupVersion.WithResource("nodes"), false},
		{&rbacv1.ClusterRole{}, rbacv1.SchemeGroupVersion.WithResource("clusterroles"), false},
		{&corev1.Namespace{}, corev1.SchemeGroupVersion.WithResource("namespaces"), false},
	}
	for _, tt := range tests {
		in, ok := Kube().byType[reflect.TypeOf(tt.obj)]
		if !ok {
			t.Errorf("%T: not in the kube table", tt.obj)
			continue
		}
		if in.GVR != tt.gvr || in.Namespaced != tt.namespaced {
			t.Errorf("%T: got %v namespaced=%v, want %v namespaced=%v", tt.obj, in.GVR, in.Namespaced, tt.gvr, tt.namespaced)
		}
	}
}

func TestFromClientsetGenerated(t *testing.T) {
	tab, err := FromClientset(reflect.TypeFor[versioned.Interface](), samplescheme.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	in, ok := tab.ForObject(&samplev1alpha1.Foo{})
	if !ok {
		t.Fatal("Foo not found")
	}
	want := samplev1alpha1.SchemeGroupVersion.WithResource("foos")
	if in.GVR != want || !in.Namespaced || in.GVK.Kind != "Foo" {
		t.Errorf("got %+v", in)
	}
	if want := []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}; !reflect.DeepEqual(in.Verbs, want) || !in.Status {
		t.Errorf("Foo's verbs %v, status %v; want %v and a status", in.Verbs, in.Status, want)
	}
	if got := tab.GroupVersions(); !reflect.DeepEqual(got, []string{"samplecontroller.ctrltest.dev/v1alpha1"}) {
		t.Errorf("GroupVersions() = %v", got)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(samplev1alpha1.SchemeGroupVersion.WithKind("Foo"))
	if in2, ok := tab.ForObject(u); !ok || in2 != in {
		t.Errorf("unstructured Foo: got %v, %v", in2, ok)
	}
	if _, ok := tab.ForGVR(want); !ok {
		t.Error("ForGVR(foos) not found")
	}
}

func TestFromClientsetErrors(t *testing.T) {
	if _, err := FromClientset(reflect.TypeFor[int](), samplescheme.Scheme); err == nil {
		t.Error("int: want an error")
	}
	if _, err := FromClientset(reflect.TypeFor[interface{ Foo() }](), samplescheme.Scheme); err == nil {
		t.Error("empty interface: want an error")
	}
}

// The generated rows of the minor the test runs on are the table
// FromClientset reads off client-go's kubernetes.Interface: run make
// codegen after a client-go upgrade (make test-minors runs this test on
// every supported minor).
func TestKubeTableIsGenerated(t *testing.T) {
	want, err := FromClientset(reflect.TypeFor[kubernetes.Interface](), kubescheme.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	version, minor := kubeminor.Running()
	got, picked := kubeTable(kubeRows(), minor, kubescheme.Scheme.AllKnownTypes())
	if picked != minor {
		t.Fatalf("zz_generated.kube.go has no rows for k8s.io/client-go %s (Kubernetes 1.%d); run make codegen", version, minor)
	}
	if diff := cmp.Diff(want.Infos(), got.Infos(), cmp.Comparer(func(a, b reflect.Type) bool { return a == b })); diff != "" {
		t.Fatalf("zz_generated.kube.go's rows of 1.%d are stale (make codegen) (-FromClientset +generated):\n%s", minor, diff)
	}
	if diff := cmp.Diff(want.GroupVersions(), got.GroupVersions()); diff != "" {
		t.Errorf("group versions (-FromClientset +generated):\n%s", diff)
	}
	for _, in := range want.Infos() {
		if got, _ := Kube().ForType(in.Type); got == nil || got.GVR != in.GVR {
			t.Errorf("ForType(%v) = %v, want %v", in.Type, got, in.GVR)
		}
	}
}

// Without client-go's version (vendored, replaced by a directory) or on a
// minor the rows do not have, the table is of the newest minor whose every
// kind the scheme knows: each minor's own kinds pick that minor.
func TestKubeTablePicksTheMinorOfTheScheme(t *testing.T) {
	rows := kubeRows()
	minors := map[int]bool{}
	for _, r := range rows {
		for _, m := range r.Minors {
			minors[m] = true
		}
	}
	if len(minors) != kubeminor.Newest-kubeminor.Oldest+1 {
		t.Errorf("zz_generated.kube.go has rows of the minors %v, want %d to %d (make codegen)", minors, kubeminor.Oldest, kubeminor.Newest)
	}
	type anyType struct{}
	for m := range minors {
		known := map[schema.GroupVersionKind]reflect.Type{}
		kinds := 0
		for _, r := range rows {
			if slices.Contains(r.Minors, m) {
				known[r.Info.GVK] = reflect.TypeFor[anyType]()
				kinds++
			}
		}
		for _, unknown := range []int{0, 99} {
			tab, picked := kubeTable(rows, unknown, known)
			if picked != m || len(tab.Infos()) != kinds {
				t.Errorf("kubeTable(minor %d, the kinds of 1.%d) picked 1.%d with %d resources, want 1.%d with %d", unknown, m, picked, len(tab.Infos()), m, kinds)
			}
		}
		if _, picked := kubeTable(rows, m, nil); picked != m {
			t.Errorf("kubeTable(minor %d) picked %d", m, picked)
		}
	}
}
