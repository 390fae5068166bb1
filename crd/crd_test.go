package crd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/controller/generated/clientset/versioned"
	"github.com/ctrltest/ctrltest/controller/generated/clientset/versioned/fake"
	"github.com/ctrltest/ctrltest/controller/generated/informers/externalversions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/tbtest"
)

var foos = fixture.Register(fake.NewSimpleClientset, fake.AddToScheme, externalversions.NewSharedInformerFactory)

const manifest = "testdata/foos.yaml"

func newFoo(name, deployment string, replicas *int32) *v1alpha1.Foo {
	return &v1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       v1alpha1.FooSpec{DeploymentName: deployment, Replicas: replicas},
	}
}

// within runs fn as the sync of a fixture with the Foo CRD and seeds.
func within(t *testing.T, fn func(ctx context.Context, c versioned.Interface), opts ...fixture.Option) *fixture.Fixture {
	t.Helper()
	f := fixture.New(t, append([]fixture.Option{fixture.WithClientset(foos), Files(t, manifest)}, opts...)...)
	c := foos.Client(f)
	res := fixture.Sync(f, func(ctx context.Context, _ string) error { fn(ctx, c); return nil }, "default/x")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	return f
}

func TestDefaultsOnCreateAndSeeds(t *testing.T) {
	var created *v1alpha1.Foo
	f := within(t, func(ctx context.Context, c versioned.Interface) {
		var err error
		created, err = c.SamplecontrollerV1alpha1().Foos("default").Create(ctx, newFoo("new", "web", nil), metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
	}, fixture.WithObjects(newFoo("seed", "web", nil)))
	if created.Spec.Replicas == nil || *created.Spec.Replicas != 1 {
		t.Errorf("created Foo: replicas %v; want the schema's default, 1", created.Spec.Replicas)
	}
	seed := f.Object(newFoo("seed", "", nil)).(*v1alpha1.Foo)
	if seed.Spec.Replicas == nil || *seed.Spec.Replicas != 1 {
		t.Errorf("seeded Foo: replicas %v; want the schema's default, 1", seed.Spec.Replicas)
	}
}

// errorOf runs write in a fixture with the Foo CRD (and seeds) and returns
// its error.
func errorOf(t *testing.T, write func(ctx context.Context, foos fooClient) error, seeds ...*v1alpha1.Foo) error {
	t.Helper()
	var opts []fixture.Option
	for _, s := range seeds {
		opts = append(opts, fixture.WithObjects(s))
	}
	var err error
	within(t, func(ctx context.Context, c versioned.Interface) {
		err = write(ctx, c.SamplecontrollerV1alpha1().Foos("default"))
	}, opts...)
	return err
}

type fooClient = interface {
	Create(context.Context, *v1alpha1.Foo, metav1.CreateOptions) (*v1alpha1.Foo, error)
	Update(context.Context, *v1alpha1.Foo, metav1.UpdateOptions) (*v1alpha1.Foo, error)
	UpdateStatus(context.Context, *v1alpha1.Foo, metav1.UpdateOptions) (*v1alpha1.Foo, error)
	Get(context.Context, string, metav1.GetOptions) (*v1alpha1.Foo, error)
}

// The server's answers, with its field paths and messages (the parity
// module's crdschema rows check the same writes on kube-apiserver).
func TestValidation(t *testing.T) {
	update := func(mutate func(*v1alpha1.Foo)) func(context.Context, fooClient) error {
		return func(ctx context.Context, c fooClient) error {
			fo, err := c.Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return err
			}
			mutate(fo)
			_, err = c.Update(ctx, fo, metav1.UpdateOptions{})
			return err
		}
	}
	tests := []struct {
		name  string
		write func(context.Context, fooClient) error
		want  string // "" for no error
	}{{
		name: "schema: a maximum",
		write: func(ctx context.Context, c fooClient) error {
			_, err := c.Create(ctx, newFoo("big", "big", ptr.To[int32](11)), metav1.CreateOptions{})
			return err
		},
		want: `Foo.samplecontroller.ctrltest.dev "big" is invalid: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`,
	}, {
		name: "schema: a maxLength",
		write: func(ctx context.Context, c fooClient) error {
			_, err := c.Create(ctx, newFoo("long", strings.Repeat("a", 64), nil), metav1.CreateOptions{})
			return err
		},
		// The server does not run the CEL rules of an object that fails
		// the schema's bounds, and says so.
		want: `Foo.samplecontroller.ctrltest.dev "long" is invalid: [spec.deploymentName: Too long: may not be more than 63 bytes, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]`,
	}, {
		name: "a CEL rule",
		write: func(ctx context.Context, c fooClient) error {
			_, err := c.Create(ctx, newFoo("nameless", "", ptr.To[int32](2)), metav1.CreateOptions{})
			return err
		},
		want: `Foo.samplecontroller.ctrltest.dev "nameless" is invalid: spec: Invalid value: a Foo with replicas needs a deploymentName`,
	}, {
		name: "a CEL rule that holds",
		write: func(ctx context.Context, c fooClient) error {
			_, err := c.Create(ctx, newFoo("idle", "", ptr.To[int32](0)), metav1.CreateOptions{})
			return err
		},
	}, {
		name:  "a transition rule (oldSelf) on update",
		write: update(func(fo *v1alpha1.Foo) { fo.Spec.DeploymentName = "other" }),
		want:  `Foo.samplecontroller.ctrltest.dev "web" is invalid: spec.deploymentName: Invalid value: "other": deploymentName cannot be changed once set`,
	}, {
		name:  "an update the transition rule allows",
		write: update(func(fo *v1alpha1.Foo) { fo.Spec.Replicas = ptr.To[int32](3) }),
	}, {
		name: "the status schema on a status update",
		write: func(ctx context.Context, c fooClient) error {
			fo, err := c.Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return err
			}
			fo.Status.AvailableReplicas = -1
			_, err = c.UpdateStatus(ctx, fo, metav1.UpdateOptions{})
			return err
		},
		// The schema's bound, and the scale subresource's status replicas
		// path, as the server's strategy reports them.
		want: `Foo.samplecontroller.ctrltest.dev "web" is invalid: [status.availableReplicas: Invalid value: -1: availableReplicas in body should be greater than or equal to 0, .status.availableReplicas: Invalid value: -1: should be a non-negative integer]`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := errorOf(t, tt.write, newFoo("web", "web", ptr.To[int32](1)))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("got %v; want no error", err)
			case tt.want != "" && (!apierrors.IsInvalid(err) || err.Error() != tt.want):
				t.Errorf("got %v; want a 422 Invalid:\n%s", err, tt.want)
			}
		})
	}
}

// A seed the server would refuse fails the test with the server's reason.
func TestSeedViolatingTheSchema(t *testing.T) {
	rec := tbtest.Run(t, func(t testing.TB) {
		f := fixture.New(t, fixture.WithClientset(foos), Files(t, manifest), fixture.WithObjects(newFoo("big", "big", ptr.To[int32](11))))
		fixture.Sync(f, func(context.Context, string) error { return nil }, "default/big")
	})
	want := `object 0 (Foo "big"): the API server would refuse this seed: Foo.samplecontroller.ctrltest.dev "big" is invalid: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`
	if !rec.Failed() || !strings.Contains(rec.String(), want) {
		t.Errorf("failed %v, messages:\n%s\nwant one containing:\n%s", rec.Failed(), rec, want)
	}
}

// Pruning: a field the schema does not know is dropped, from a typed
// object (converted to unstructured and back) as from an unstructured one;
// x-kubernetes-preserve-unknown-fields keeps what is under it.
func TestPruning(t *testing.T) {
	const noAvailable = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.samplecontroller.ctrltest.dev
spec:
  group: samplecontroller.ctrltest.dev
  scope: Namespaced
  names: {kind: Foo, plural: foos}
  versions:
    - name: v1alpha1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                deploymentName: {type: string}
                replicas: {type: integer, default: 2}
                extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
            status: {type: object}
`
	var answer *v1alpha1.Foo
	f := fixture.New(t, fixture.WithClientset(foos), Bytes(t, []byte(noAvailable)), fixture.WithObjects(newFoo("web", "web", ptr.To[int32](1))))
	c := foos.Client(f).SamplecontrollerV1alpha1().Foos("default")
	fixture.Sync(f, func(ctx context.Context, _ string) error {
		fo, err := c.Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		fo.Status.AvailableReplicas = 3
		answer, err = c.UpdateStatus(ctx, fo, metav1.UpdateOptions{})
		return err
	}, "default/web")
	if answer == nil || answer.Status.AvailableReplicas != 0 {
		t.Errorf("status.availableReplicas, which the schema does not know, was stored: %+v", answer)
	}

	d, err := Parse("inline", []byte(noAvailable))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "samplecontroller.ctrltest.dev/v1alpha1", "kind": "Foo",
		"metadata": map[string]any{"name": "web", "namespace": "default"},
		"spec":     map[string]any{"deploymentName": "web", "typo": 1, "extra": map[string]any{"anything": "kept"}},
		"unknown":  true,
	}}
	if err := d.Default(u); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"apiVersion": "samplecontroller.ctrltest.dev/v1alpha1", "kind": "Foo",
		"metadata": map[string]any{"name": "web", "namespace": "default"},
		"spec":     map[string]any{"deploymentName": "web", "replicas": int64(2), "extra": map[string]any{"anything": "kept"}},
	}
	if diff := cmp.Diff(want, u.Object); diff != "" {
		t.Errorf("pruned and defaulted (-want +got):\n%s", diff)
	}
	// Another kind is left alone.
	d2 := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}}
	if err := d.Default(d2); err != nil || d.Validate(d2, nil, "") != nil {
		t.Errorf("a Deployment: %v", err)
	}
}

func TestInvalidManifests(t *testing.T) {
	good, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, manifest string
		want           []string
	}{{
		name: "not YAML", manifest: "kind: [",
		want: []string{"crd: bad.yaml, document 1:"},
	}, {
		name: "not a CRD", manifest: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
		want: []string{"bad.yaml, document 1: v1 ConfigMap is not a CustomResourceDefinition of apiextensions.k8s.io/v1"},
	}, {
		name: "a v1beta1 CRD", manifest: strings.Replace(string(good), "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1", 1),
		want: []string{"bad.yaml, document 1: apiextensions.k8s.io/v1beta1 CustomResourceDefinition is not"},
	}, {
		name: "an unknown field", manifest: strings.Replace(string(good), "scope: Namespaced", "scope: Namespaced\n  scoop: 1", 1),
		want: []string{"bad.yaml, document 1:", `unknown field "scoop"`},
	}, {
		name: "a schema that is not structural", manifest: strings.Replace(string(good), "                  type: string\n", "", 1),
		want: []string{"bad.yaml, document 1: the API server would refuse CustomResourceDefinition \"foos.samplecontroller.ctrltest.dev\"", "type: Required value: must not be empty for specified object fields"},
	}, {
		name: "a CEL rule that does not compile", manifest: strings.Replace(string(good), "self == oldSelf", "self ==", 1),
		want: []string{"bad.yaml, document 1: the API server would refuse", "x-kubernetes-validations[0].rule: Invalid value", "compilation failed"},
	}, {
		name: "a name that is not plural.group", manifest: strings.Replace(string(good), "name: foos.samplecontroller", "name: bars.samplecontroller", 1),
		want: []string{`metadata.name: Invalid value: "bars.samplecontroller.ctrltest.dev": must be spec.names.plural+"."+spec.group`},
	}, {
		name: "a default the schema refuses", manifest: strings.Replace(string(good), "default: 1", "default: 11", 1),
		want: []string{"the API server would refuse", "properties[replicas].default: Invalid value: 11:  in body should be less than or equal to 10"},
	}, {
		name: "empty", manifest: "# nothing\n",
		want: []string{"crd: bad.yaml holds no CustomResourceDefinition"},
	}, {
		name: "two documents for one kind", manifest: string(good) + "\n---\n" + string(good),
		want: []string{"crd: bad.yaml (document 1) and bad.yaml (document 2) both define Foo.samplecontroller.ctrltest.dev"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.yaml")
			if err := os.WriteFile(path, []byte(tt.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Load(path)
			if err == nil {
				t.Fatalf("Load accepted the manifest; want an error containing %q", tt.want)
			}
			msg := strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), "")
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			// In a test: the fixture option fails it, naming the file.
			rec := tbtest.Run(t, func(tb testing.TB) { Files(tb, path) })
			if !rec.Failed() || !strings.Contains(rec.String(), "bad.yaml") {
				t.Errorf("Files: failed %v, messages %q; want a failure naming the file", rec.Failed(), rec)
			}
		})
	}
	if _, err := Load("testdata/missing.yaml"); err == nil || !strings.Contains(err.Error(), "testdata/missing.yaml") {
		t.Errorf("a missing file: %v; want an error naming it", err)
	}
	if _, err := Load(); err == nil {
		t.Errorf("Load(): no error")
	}
}

func TestResources(t *testing.T) {
	const m = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {kind: Widget, plural: widgets, shortNames: [wg]}
  versions:
    - name: v1
      served: true
      storage: true
      selectableFields: [{jsonPath: .spec.color}]
      subresources:
        status: {}
        scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas, labelSelectorPath: .status.selector}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: {type: object, properties: {color: {type: string}, replicas: {type: integer}}}
            status: {type: object, properties: {replicas: {type: integer}, selector: {type: string}}}
    - name: v0
      served: false
      storage: false
      schema: {openAPIV3Schema: {type: object}}
`
	d, err := Parse("widgets", []byte(m))
	if err != nil {
		t.Fatal(err)
	}
	want := []Resource{{
		Name: "widgets.example.com", Group: "example.com", Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget",
		ShortNames: []string{"wg"},
		Versions: []Version{{Name: "v1", Storage: true, Status: true,
			Scale:            &Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".status.selector"},
			SelectableFields: []string{".spec.color"}}},
	}}
	if diff := cmp.Diff(want, d.Resources()); diff != "" {
		t.Errorf("Resources (-want +got):\n%s", diff)
	}
}

// A manifest is compiled once per test binary, however many fixtures and
// loads use it.
func TestCompiledOnce(t *testing.T) {
	if _, err := Load(manifest); err != nil {
		t.Fatal(err)
	}
	before := compilations.Load()
	for range 5 {
		f := fixture.New(t, fixture.WithClientset(foos), Files(t, manifest), fixture.WithObjects(newFoo("web", "web", nil)))
		fixture.Sync(f, func(context.Context, string) error { return nil }, "default/web")
		if _, err := Parse("again", mustRead(t, manifest)); err != nil {
			t.Fatal(err)
		}
	}
	if n := compilations.Load() - before; n != 0 {
		t.Errorf("%d compilations for 5 fixtures of a loaded manifest; want 0", n)
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// BenchmarkRowWithCRD is a row with a CRD schema: a fixture, a seed and a
// create of a custom resource, defaulted and validated (crd=files: the
// option made per fixture with Files; crd=loaded: made once with Load),
// beside the same row without the schema (crd=off). compilations/op stays 0: the
// schema is compiled once per test binary, not per fixture; the row pays
// for what it writes and seeds. BenchmarkCompile is what compiling the
// schema per fixture would cost.
func BenchmarkRowWithCRD(b *testing.B) {
	defs, err := Load(manifest)
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"off", "files", "loaded"} {
		b.Run("crd="+mode, func(b *testing.B) {
			before := compilations.Load()
			b.ReportAllocs()
			for b.Loop() {
				op := tbtest.PerOp(b)
				opts := []fixture.Option{fixture.WithClientset(foos), fixture.WithObjects(newFoo("web", "web", ptr.To[int32](1)))}
				switch mode {
				case "files": // reads the file, finds it parsed and compiled
					opts = append(opts, Files(op, manifest))
				case "loaded":
					opts = append(opts, defs.Option())
				}
				f := fixture.New(op, opts...)
				c := foos.Client(f).SamplecontrollerV1alpha1().Foos("default")
				res := fixture.Sync(f, func(ctx context.Context, _ string) error {
					_, err := c.Create(ctx, newFoo("new", "new", ptr.To[int32](2)), metav1.CreateOptions{})
					return err
				}, "default/web")
				if res.Err != nil {
					b.Fatal(res.Err)
				}
				op.Done()
			}
			b.ReportMetric(float64(compilations.Load()-before)/float64(b.N), "compilations/op")
		})
	}
}

// BenchmarkCompile compiles the Foo CRD (validation, structural schema,
// schema validators, CEL programs), bypassing the cache.
func BenchmarkCompile(b *testing.B) {
	doc := mustRead(b, manifest)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := compile(doc); err != nil {
			b.Fatal(err)
		}
	}
}

// Ratcheting: an update that leaves an invalid field as it was passes, as
// on kube-apiserver (CRDValidationRatcheting, GA); one that changes it
// does not.
func TestRatcheting(t *testing.T) {
	d, err := Load(manifest)
	if err != nil {
		t.Fatal(err)
	}
	foo := func(replicas int64, deployment string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "samplecontroller.ctrltest.dev/v1alpha1", "kind": "Foo",
			"metadata": map[string]any{"name": "web", "namespace": "default", "resourceVersion": "1"},
			"spec":     map[string]any{"deploymentName": deployment, "replicas": replicas},
		}}
	}
	old := foo(11, "web") // stored before the CRD had its maximum
	if errs := d.Validate(foo(11, "web").DeepCopy(), old, ""); len(errs) != 0 {
		t.Errorf("an update that keeps the invalid replicas: %v; want none (ratcheting)", errs)
	}
	if errs := d.Validate(foo(12, "web"), old, ""); len(errs) != 1 || !strings.Contains(errs[0].Error(), "spec.replicas: Invalid value: 12") {
		t.Errorf("an update to other invalid replicas: %v; want the maximum's error", errs)
	}
}

// A default that does not fit the Go type fails the test, naming the
// object, and the write gets an internal error.
func TestDefaultThatDoesNotFitTheGoType(t *testing.T) {
	const misfit = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: foos.samplecontroller.ctrltest.dev}
spec:
  group: samplecontroller.ctrltest.dev
  scope: Namespaced
  names: {kind: Foo, plural: foos}
  versions:
    - name: v1alpha1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                deploymentName: {type: string}
                replicas: {type: string, default: one}
`
	rec := tbtest.Run(t, func(t testing.TB) {
		f := fixture.New(t, fixture.WithClientset(foos), Bytes(t, []byte(misfit)), fixture.WithObjects(newFoo("web", "web", nil)))
		fixture.Sync(f, func(context.Context, string) error { return nil }, "default/web")
	})
	want := "the defaulting function panicked on Foo default/web: crd: Foo: the defaulted object does not fit *v1alpha1.Foo"
	if !rec.Failed() || !strings.Contains(rec.String(), want) {
		t.Errorf("failed %v, messages:\n%s\nwant one containing %q", rec.Failed(), rec, want)
	}
}

// Fixtures in parallel share the compiled definitions (go test -race).
func TestParallelFixtures(t *testing.T) {
	for i := range 4 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			err := errorOf(t, func(ctx context.Context, c fooClient) error {
				if _, err := c.Create(ctx, newFoo("new", "new", nil), metav1.CreateOptions{}); err != nil {
					return err
				}
				_, err := c.Create(ctx, newFoo("big", "big", ptr.To[int32](11)), metav1.CreateOptions{})
				return err
			}, newFoo("web", "web", nil))
			if !apierrors.IsInvalid(err) {
				t.Errorf("got %v; want Invalid", err)
			}
		})
	}
}
