package crd

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/controller/generated/clientset/versioned"
	"github.com/ctrltest/ctrltest/controller/generated/clientset/versioned/fake"
	"github.com/ctrltest/ctrltest/controller/generated/informers/externalversions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/tbtest"
)

var fooGVR = v1alpha1.SchemeGroupVersion.WithResource("foos")

// webFoos registers the Foo clientset with an informer factory whose
// informers list the Foos whose deploymentName is web.
var webFoos = fixture.Register(fake.NewSimpleClientset, fake.AddToScheme,
	func(c versioned.Interface, d time.Duration) externalversions.SharedInformerFactory {
		return externalversions.NewSharedInformerFactoryWithOptions(c, d, externalversions.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = "spec.deploymentName=web"
		}))
	})

var fooSeeds = fixture.WithObjects(newFoo("a", "web", ptr.To[int32](1)), newFoo("b", "api", ptr.To[int32](2)), newFoo("c", "web", ptr.To[int32](3)))

// The CRD's selectableFields select, through the typed clientset, the
// dynamic client and an informer whose tweakListOptions name one.
func TestSelectableFieldsFromTheManifest(t *testing.T) {
	f := fixture.New(t, fixture.WithClientset(webFoos), Files(t, manifest), fooSeeds)
	ctx := f.Context()
	list, err := webFoos.Client(f).SamplecontrollerV1alpha1().Foos("default").List(ctx, metav1.ListOptions{FieldSelector: "spec.deploymentName=web"})
	if err != nil {
		t.Fatalf("typed list: %v", err)
	}
	var got []string
	for _, o := range list.Items {
		got = append(got, o.Name)
	}
	if d := cmp.Diff([]string{"a", "c"}, got); d != "" {
		t.Errorf("typed list with spec.deploymentName=web (-want +got):\n%s", d)
	}
	ul, err := f.Dynamic().Resource(fooGVR).Namespace("default").List(ctx, metav1.ListOptions{FieldSelector: "spec.deploymentName==api"})
	if err != nil {
		t.Fatalf("dynamic list: %v", err)
	}
	if len(ul.Items) != 1 || ul.Items[0].GetName() != "b" {
		t.Errorf("dynamic list with spec.deploymentName==api: %d items; want b", len(ul.Items))
	}
	lister := webFoos.Informers(f).Samplecontroller().V1alpha1().Foos().Lister()
	f.Start()
	cached, err := lister.List(labels.Everything())
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, o := range cached {
		got = append(got, o.Name)
	}
	slices.Sort(got)
	if d := cmp.Diff([]string{"a", "c"}, got); d != "" {
		t.Errorf("the tweaked informer's cache (-want +got):\n%s", d)
	}
}

// The CRD's scale subresource is served; a CRD without one (the Foo
// controller's own manifest) answers the server's 404.
func TestScaleFromTheManifest(t *testing.T) {
	f := fixture.New(t, fixture.WithClientset(foos), Files(t, manifest), fooSeeds)
	ctx := f.Context()
	dyn := f.Dynamic().Resource(fooGVR).Namespace("default")
	s, err := dyn.Get(ctx, "b", metav1.GetOptions{}, "scale")
	if err != nil {
		t.Fatalf("get scale: %v", err)
	}
	if r, _, _ := unstructured.NestedInt64(s.Object, "spec", "replicas"); r != 2 {
		t.Errorf("the scale's spec.replicas is %d; want 2", r)
	}
	if err := unstructured.SetNestedField(s.Object, int64(5), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Update(ctx, s, metav1.UpdateOptions{}, "scale"); err != nil {
		t.Fatalf("update scale: %v", err)
	}
	b, err := foos.Client(f).SamplecontrollerV1alpha1().Foos("default").Get(ctx, "b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *b.Spec.Replicas != 5 || b.Generation != 2 {
		t.Errorf("the Foo after the scale update: replicas %d generation %d; want 5, 2", *b.Spec.Replicas, b.Generation)
	}
	// The schema's bounds hold for a scale update: it is an update of the
	// Foo.
	if err := unstructured.SetNestedField(s.Object, int64(11), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	s.SetResourceVersion("")
	if _, err := dyn.Update(ctx, s, metav1.UpdateOptions{}, "scale"); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.replicas in body should be less than or equal to 10") {
		t.Errorf("a scale above the schema's maximum: %v; want the schema's 422", err)
	}

	plain := fixture.New(t, fixture.WithClientset(foos), Files(t, "../controller/artifacts/crd.yaml"), fooSeeds)
	if _, err := plain.Dynamic().Resource(fooGVR).Namespace("default").Get(plain.Context(), "b", metav1.GetOptions{}, "scale"); !apierrors.IsNotFound(err) {
		t.Errorf("a scale get without the CRD's scale subresource: %v; want the server's 404", err)
	}
}

// A registration whose plural, scope or status subresource is not its
// CRD's fails the test, naming both.
func TestRegistrationDisagreesWithTheManifest(t *testing.T) {
	base := string(mustRead(t, manifest))
	for _, tc := range []struct{ name, from, to, want string }{
		{"plural", "plural: foos", "plural: fooes", `the registration's plural is "foos", the CRD's "fooes"`},
		{"scope", "scope: Namespaced", "scope: Cluster", "the registration's resource is namespaced, the CRD's cluster-scoped"},
		{"status", "        status: {}\n", "", "the registration serves a status subresource, the CRD declares none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := strings.Replace(base, tc.from, tc.to, 1)
			if tc.name == "plural" {
				m = strings.Replace(m, "name: foos.samplecontroller", "name: fooes.samplecontroller", 1)
			}
			rec := tbtest.Run(t, func(t testing.TB) {
				fixture.New(t, fixture.WithClientset(foos), Bytes(t, []byte(m)))
			})
			for _, want := range []string{tc.want, "samplecontroller.ctrltest.dev/v1alpha1, Kind=Foo (versioned.Interface)", "of manifest 0 (document 1)"} {
				if !strings.Contains(rec.String(), want) {
					t.Errorf("messages:\n%s\nwant one containing:\n%s", rec, want)
				}
			}
		})
	}
}
