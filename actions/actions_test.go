package actions

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	samplev1alpha1 "github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
)

var deployments = appsv1.SchemeGroupVersion.WithResource("deployments")

func deployment(name string, replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       appsv1.DeploymentSpec{Replicas: &replicas},
	}
}

// record runs fn against a fresh kube fake clientset and returns what it recorded.
func record(t *testing.T, fn func(c *fake.Clientset)) []Action {
	t.Helper()
	c := fake.NewSimpleClientset()
	fn(c)
	return FromList(c.Actions())
}

func TestFromRecordsEveryVerb(t *testing.T) {
	ctx := t.Context()
	got := record(t, func(c *fake.Clientset) {
		d := c.AppsV1().Deployments("default")
		_, _ = d.Create(ctx, deployment("web", 1), metav1.CreateOptions{FieldManager: "m"})
		_, _ = d.Get(ctx, "web", metav1.GetOptions{})
		_, _ = d.Update(ctx, deployment("web", 2), metav1.UpdateOptions{FieldManager: "m"})
		_, _ = d.UpdateStatus(ctx, deployment("web", 2), metav1.UpdateOptions{})
		_, _ = d.Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{FieldManager: "p"})
		_, _ = d.Apply(ctx, appsv1ac.Deployment("web", "default").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(4)), metav1.ApplyOptions{FieldManager: "a", Force: true})
		_, _ = d.List(ctx, metav1.ListOptions{})
		_ = d.Delete(ctx, "web", metav1.DeleteOptions{})
		_ = d.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
	})
	var lines []string
	for _, a := range got {
		lines = append(lines, a.String()+" fm="+a.FieldManager)
	}
	want := []string{
		"create apps/v1 deployments default/web fm=m",
		"get apps/v1 deployments default/web fm=",
		"update apps/v1 deployments default/web fm=m",
		"update apps/v1 deployments/status default/web fm=",
		"patch (merge) apps/v1 deployments default/web fm=p",
		"patch (apply) apps/v1 deployments default/web fm=a",
		"list apps/v1 deployments default/ fm=",
		"delete apps/v1 deployments default/web fm=",
		"delete-collection apps/v1 deployments default/ fm=",
	}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("recorded actions (-want +got):\n%s", d)
	}
	if n := len(Writes(got)); n != 7 {
		t.Errorf("Writes: got %d, want 7", n)
	}
	if !got[5].IsApply() || got[4].IsApply() {
		t.Error("IsApply wrong")
	}
}

func TestStringClusterScoped(t *testing.T) {
	a := Create(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}})
	if got, want := a.String(), "create v1 nodes n1"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	g := Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", GenerateName: "web-"}})
	if got, want := g.String(), "create v1 pods ns/ generateName=web-"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestConstructorsMatchRecorded(t *testing.T) {
	ctx := t.Context()
	got := record(t, func(c *fake.Clientset) {
		d := c.AppsV1().Deployments("default")
		_, _ = d.Create(ctx, deployment("web", 1), metav1.CreateOptions{FieldManager: "m"})
		_, _ = d.UpdateStatus(ctx, deployment("web", 1), metav1.UpdateOptions{})
		_, _ = d.Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"replicas":3},"metadata":{"labels":{"a":"b"}}}`), metav1.PatchOptions{})
		_, _ = d.Apply(ctx, appsv1ac.Deployment("web", "default").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(4)), metav1.ApplyOptions{FieldManager: "a"})
		_ = d.Delete(ctx, "web", metav1.DeleteOptions{})
	})
	want := []Action{
		Create(deployment("web", 1)).WithFieldManager("m"),
		UpdateStatus(deployment("web", 1)),
		// Same document, other key order and spacing.
		Patch(deployment("web", 0), types.MergePatchType, []byte(`{"metadata": {"labels": {"a": "b"}}, "spec": {"replicas": 3}}`)),
		Apply(appsv1ac.Deployment("web", "default").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(4))).WithFieldManager("a"),
		Delete(deployment("web", 0)),
	}
	if d := Diff(want, Writes(got)); d != "" {
		t.Errorf("Diff = %s", d)
	}
}

func TestDiffReportsMismatches(t *testing.T) {
	got := []Action{Create(deployment("a", 1)), Create(deployment("b", 2)), Delete(deployment("c", 0))}
	tests := []struct {
		name     string
		want     []Action
		opts     []Option
		contains []string
	}{
		{
			name:     "missing",
			want:     []Action{Create(deployment("a", 1)), Create(deployment("x", 1)), Create(deployment("b", 2)), Delete(deployment("c", 0))},
			contains: []string{"missing (wanted, not made):\n  want[1] create apps/v1 deployments default/x\n"},
		},
		{
			name:     "unexpected",
			want:     []Action{Create(deployment("a", 1)), Delete(deployment("c", 0))},
			contains: []string{"unexpected (made, not wanted):\n  got[1] create apps/v1 deployments default/b\n"},
		},
		{
			name:     "object differs",
			want:     []Action{Create(deployment("a", 1)), Create(deployment("b", 3)), Delete(deployment("c", 0))},
			contains: []string{"want[1] and got[1] create apps/v1 deployments default/b differ:", "-", "+", "Replicas"},
		},
		{
			name:     "order counts by default",
			want:     []Action{Create(deployment("b", 2)), Create(deployment("a", 1)), Delete(deployment("c", 0))},
			contains: []string{"missing", "unexpected"},
		},
		{
			name:     "field manager",
			want:     []Action{Create(deployment("a", 1)).WithFieldManager("mine"), Create(deployment("b", 2)), Delete(deployment("c", 0))},
			contains: []string{`field manager: want "mine", got ""`},
		},
		{
			name:     "subresource counts",
			want:     []Action{Create(deployment("a", 1)).WithSubresource("status"), Create(deployment("b", 2)), Delete(deployment("c", 0))},
			contains: []string{"want[0] create apps/v1 deployments/status default/a"},
		},
		{
			name:     "nil object",
			want:     []Action{Create(nil)},
			contains: []string{"want[0]: actions.Create: nil object"},
		},
		{
			name:     "nil pointer",
			want:     []Action{Delete((*appsv1.Deployment)(nil))},
			contains: []string{"want[0]: actions.Delete: nil object"},
		},
		{
			name:     "predicate fails",
			want:     []Action{Create(deployment("a", 1)).Where(func(Action) error { return errors.New("not good") }), Create(deployment("b", 2)), Delete(deployment("c", 0))},
			contains: []string{"not good"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Diff(tt.want, got, tt.opts...)
			if d == "" {
				t.Fatal("Diff = \"\", want a mismatch")
			}
			if Equal(tt.want, got, tt.opts...) {
				t.Error("Equal = true, want false")
			}
			for _, c := range tt.contains {
				if !strings.Contains(d, c) {
					t.Errorf("Diff lacks %q:\n%s", c, d)
				}
			}
		})
	}
}

func TestDiffMatches(t *testing.T) {
	got := []Action{Create(deployment("a", 1)), Create(deployment("b", 2))}
	withRV := deployment("a", 1)
	withRV.ResourceVersion, withRV.UID = "42", "u"
	withRV.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "x"}}
	tests := []struct {
		name string
		want []Action
		opts []Option
	}{
		{"equal", []Action{Create(deployment("a", 1)), Create(deployment("b", 2))}, nil},
		{"unordered", []Action{Create(deployment("b", 2)), Create(deployment("a", 1))}, []Option{Unordered()}},
		{"volatile fields ignored", []Action{Create(withRV), Create(deployment("b", 2))}, nil},
		{"subset", []Action{Create(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}}), Create(deployment("b", 2))}, []Option{Subset()}},
		{"cmp option", []Action{Create(deployment("a", 7)), Create(deployment("b", 2))}, []Option{CmpOptions(cmpopts.IgnoreFields(appsv1.DeploymentSpec{}, "Replicas"))}},
		{"predicate", []Action{Create(deployment("a", 99)).Where(func(g Action) error {
			if *g.Object.(*appsv1.Deployment).Spec.Replicas != 1 {
				return errors.New("want 1 replica")
			}
			return nil
		}), Create(deployment("b", 2))}, nil},
		{"normalizer", []Action{Create(deployment("a", 5)), Create(deployment("b", 5))}, []Option{Normalize(func(o runtime.Object) { o.(*appsv1.Deployment).Spec.Replicas = nil })}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := Diff(tt.want, got, tt.opts...); d != "" {
				t.Errorf("Diff = %s", d)
			}
		})
	}
}

func TestKeepVolatileFields(t *testing.T) {
	w := deployment("a", 1)
	w.ResourceVersion = "42"
	if Diff([]Action{Create(w)}, []Action{Create(deployment("a", 1))}, KeepVolatileFields()) == "" {
		t.Error("KeepVolatileFields: resourceVersion difference not reported")
	}
}

func TestUnorderedPrefersEqualContent(t *testing.T) {
	got := []Action{Update(deployment("a", 1)), Update(deployment("a", 2))}
	want := []Action{Update(deployment("a", 2)), Update(deployment("a", 1))}
	if d := Diff(want, got, Unordered()); d != "" {
		t.Errorf("Diff = %s", d)
	}
}

func TestPatchComparedSemantically(t *testing.T) {
	got := []Action{Patch(deployment("a", 0), types.MergePatchType, []byte(`{"a":1,"b":[1,2]}`))}
	if d := Diff([]Action{Patch(deployment("a", 0), types.MergePatchType, []byte("b: [1, 2]\na: 1\n"))}, got); d != "" {
		t.Errorf("YAML body vs JSON: %s", d)
	}
	d := Diff([]Action{Patch(deployment("a", 0), types.StrategicMergePatchType, []byte(`{"a":1,"b":[1,2]}`))}, got)
	if !strings.Contains(d, "patch type") {
		t.Errorf("patch type difference not reported:\n%s", d)
	}
	d = Diff([]Action{Patch(deployment("a", 0), types.MergePatchType, []byte(`{"a":2,"b":[1,2]}`))}, got)
	if !strings.Contains(d, "patch (-want +got)") {
		t.Errorf("patch body difference not reported:\n%s", d)
	}
}

func TestCustomResourceNeedsResolver(t *testing.T) {
	foo := &samplev1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "foo"}}
	foos := samplev1alpha1.SchemeGroupVersion.WithResource("foos")
	got := []Action{{Verb: VerbUpdate, Resource: foos, Subresource: "status", Namespace: "default", Name: "foo", Object: foo}}
	want := []Action{UpdateStatus(foo)}
	d := Diff(want, got)
	if !strings.Contains(d, "cannot tell the resource of *v1alpha1.Foo") {
		t.Errorf("unresolved custom resource not reported:\n%s", d)
	}
	resolver := func(obj runtime.Object) (schema.GroupVersionResource, bool) {
		_, ok := obj.(*samplev1alpha1.Foo)
		return foos, ok
	}
	if d := Diff(want, got, WithResolver(resolver)); d != "" {
		t.Errorf("with resolver: %s", d)
	}
}

func TestApplyBadInput(t *testing.T) {
	if err := Apply(nil).err; err == nil {
		t.Error("Apply(nil): no error")
	}
	bare := (&appsv1ac.DeploymentApplyConfiguration{}).WithName("x")
	if err := Apply(bare).err; err == nil || !strings.Contains(err.Error(), "has no apiVersion and kind") {
		t.Errorf("Apply(configuration without kind): err = %v", err)
	}
}

func TestFromUnknownActionKeepsIdentity(t *testing.T) {
	a := From(clienttesting.GenericActionImpl{ActionImpl: clienttesting.ActionImpl{Verb: "proxy", Namespace: "ns", Resource: deployments}})
	if a.Verb != "proxy" || a.Namespace != "ns" || a.Resource != deployments {
		t.Errorf("From = %+v", a)
	}
}

func TestSubsetIgnoresUnsetFields(t *testing.T) {
	got := deployment("web", 3)
	got.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	got.Status.Replicas = 2
	gotActions := []Action{Update(got)}
	tests := []struct {
		name  string
		want  *appsv1.Deployment
		match bool
	}{
		{"replicas only", deployment("web", 3), true},
		{"wrong replicas", deployment("web", 4), false},
		{"status set", func() *appsv1.Deployment { d := deployment("web", 3); d.Status.Replicas = 2; return d }(), true},
		{"wrong status", func() *appsv1.Deployment { d := deployment("web", 3); d.Status.Replicas = 1; return d }(), false},
		{"label not in got", func() *appsv1.Deployment { d := deployment("web", 3); d.Labels = map[string]string{"a": "b"}; return d }(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Diff([]Action{Update(tt.want)}, gotActions, Subset())
			if (d == "") != tt.match {
				t.Errorf("match = %v, want %v; diff:\n%s", d == "", tt.match, d)
			}
		})
	}
}

func TestSubsetEmptyWantMatchesAnyObject(t *testing.T) {
	if d := Diff([]Action{Create(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}})}, []Action{Create(deployment("a", 3))}, Subset()); d != "" {
		t.Error(d)
	}
}

func TestReadConstructorsMatchRecorded(t *testing.T) {
	ctx := t.Context()
	got := record(t, func(c *fake.Clientset) {
		_, _ = c.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		_, _ = c.AppsV1().Deployments("default").List(ctx, metav1.ListOptions{})
		_, _ = c.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		_, _ = c.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{})
		_, _ = c.AppsV1().Deployments("default").Create(ctx, deployment("web", 1), metav1.CreateOptions{})
	})
	want := []Action{
		Get(deployment("web", 0)),
		List(&appsv1.Deployment{}, "default"),
		List(&corev1.Pod{}, ""),
		Get(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}),
	}
	if d := Diff(want, Reads(got)); d != "" {
		t.Errorf("Diff = %s", d)
	}
	// Each part counts: a list of another namespace, a get of another name,
	// the order.
	for name, bad := range map[string][]Action{
		"namespace": {Get(deployment("web", 0)), List(&appsv1.Deployment{}, "other"), List(&corev1.Pod{}, ""), want[3]},
		"name":      {Get(deployment("api", 0)), want[1], want[2], want[3]},
		"order":     {want[1], want[0], want[2], want[3]},
		"verb":      {List(deployment("web", 0), "default"), want[1], want[2], want[3]},
	} {
		if Diff(bad, Reads(got)) == "" {
			t.Errorf("%s: Diff matched %v", name, bad)
		}
	}
	if a := Get(nil); Diff([]Action{a}, nil) == "" || !strings.Contains(Diff([]Action{a}, nil), "actions.Get: nil object") {
		t.Errorf("Get(nil): Diff = %q", Diff([]Action{a}, nil))
	}
}

func TestIsUnordered(t *testing.T) {
	for _, tt := range []struct {
		opts []Option
		want bool
	}{
		{nil, false},
		{[]Option{Subset()}, false},
		{[]Option{Subset(), Unordered()}, true},
		{[]Option{Options{Subset(), Options{Unordered()}}}, true},
		{[]Option{nil, Unordered()}, true},
	} {
		if got := IsUnordered(tt.opts...); got != tt.want {
			t.Errorf("IsUnordered(%d options) = %v, want %v", len(tt.opts), got, tt.want)
		}
	}
}
