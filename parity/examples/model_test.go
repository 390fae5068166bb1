package examples

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/examples/foo"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/fixture/adapter"
	"github.com/ctrltest/ctrltest/parity"
)

// Each case is a small controller doing one thing client-go's fakes get
// wrong. On the bare fakes (fixture.WithBareFakes) the parity report names
// the divergence; with the fixture's API server model, on by default, the
// fakes behave as the server does and the report is empty.
func TestModelRemovesDivergences(t *testing.T) {
	srv := parity.Shared(t)
	configMap := func(name string, mutate ...func(*corev1.ConfigMap)) *corev1.ConfigMap {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}}}
		for _, m := range mutate {
			m(cm)
		}
		return cm
	}
	cases := []struct {
		name    string
		wire    func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName]
		objects []runtime.Object
		key     string
		want    parity.Kind
	}{{
		name: "a create with generateName",
		wire: func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
			return func(ctx context.Context, key cache.ObjectName) error {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: key.Name + "-"}}
				_, err := f.Kube().CoreV1().ConfigMaps(key.Namespace).Create(ctx, cm, metav1.CreateOptions{})
				return err
			}
		},
		key:  "default/web",
		want: parity.GenerateName,
	}, {
		name: "two updates from one read",
		wire: func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
			return func(ctx context.Context, key cache.ObjectName) error {
				client := f.Kube().CoreV1().ConfigMaps(key.Namespace)
				cm, err := client.Get(ctx, key.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				for _, v := range []string{"1", "2"} {
					stale := cm.DeepCopy() // the resourceVersion of the first read
					stale.Data = map[string]string{"v": v}
					if _, err := client.Update(ctx, stale, metav1.UpdateOptions{}); err != nil {
						return err
					}
				}
				return nil
			}
		},
		objects: []runtime.Object{configMap("web")},
		key:     "default/web",
		want:    parity.ResourceVersion,
	}, {
		name: "a status written with a plain update",
		wire: func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
			return func(ctx context.Context, key cache.ObjectName) error {
				client := foo.Foos.Client(f).SamplecontrollerV1alpha1().Foos(key.Namespace)
				fo, err := client.Get(ctx, key.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				fo.Status.AvailableReplicas = 1
				_, err = client.Update(ctx, fo, metav1.UpdateOptions{})
				return err
			}
		},
		objects: []runtime.Object{&v1alpha1.Foo{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
			Spec:       v1alpha1.FooSpec{DeploymentName: "web", Replicas: ptr.To[int32](1)},
		}},
		key:  "default/web",
		want: parity.StatusSplit,
	}, {
		name: "a delete-collection",
		wire: func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
			return func(ctx context.Context, key cache.ObjectName) error {
				return f.Kube().CoreV1().ConfigMaps(key.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app=web"})
			}
		},
		objects: []runtime.Object{configMap("web"), configMap("web-2")},
		key:     "default/web",
		want:    parity.DeleteCollection,
	}, {
		name: "a delete of an object with finalizers",
		wire: func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
			return func(ctx context.Context, key cache.ObjectName) error {
				return f.Kube().CoreV1().ConfigMaps(key.Namespace).Delete(ctx, key.Name, metav1.DeleteOptions{})
			}
		},
		objects: []runtime.Object{configMap("web", func(cm *corev1.ConfigMap) { cm.Finalizers = []string{"example.com/keep"} })},
		key:     "default/web",
		want:    parity.Finalizers,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			row := fixture.Row{Name: tc.name, Objects: tc.objects, Key: tc.key}
			table := fixture.Table[cache.ObjectName]{Wire: tc.wire, Options: []fixture.Option{fixture.WithClientset(foo.Foos), fixture.WithBareFakes()}}

			bare := parity.Compare(t, srv, table, row)
			t.Logf("on the bare fakes:\n%s", bare)
			if !slices.Contains(bare.Kinds(), tc.want) {
				t.Errorf("on the bare fakes: divergences %v, want one of kind %q", bare.Kinds(), tc.want)
			}

			table.Options = []fixture.Option{fixture.WithClientset(foo.Foos)}
			model := parity.Compare(t, srv, table, row)
			t.Logf("with the model:\n%s", model)
			if len(model.Divergences) > 0 {
				t.Errorf("with the model: the fakes still diverge from the server:\n%s", model)
			}
		})
	}
}

// The server refuses what the fakes accept: the model does not validate,
// and the report names it.
func TestValidationIsReported(t *testing.T) {
	srv := parity.Shared(t)
	table := fixture.Table[string]{Wire: func(f *fixture.Fixture) fixture.SyncFunc[string] {
		return func(ctx context.Context, key string) error {
			ns, _, _ := cache.SplitMetaNamespaceKey(key)
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "Not_A_DNS_Name"}}
			_, err := f.Kube().CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
			return err
		}
	}}
	rep := parity.Compare(t, srv, table, fixture.Row{Name: "invalid name", Key: "default/web"})
	t.Logf("\n%s", rep)
	if got := rep.Kinds(); !slices.Equal(got, []parity.Kind{parity.Objects, parity.Validation}) {
		t.Errorf("divergences %v, want [%s %s] (the server refused the create; the fakes hold the object)", got, parity.Objects, parity.Validation)
	}
	if rep.Server.Err == nil || rep.Fakes.Err != nil {
		t.Errorf("errors: fakes %v, server %v; want only the server's", rep.Fakes.Err, rep.Server.Err)
	}
}

// A row that skips or fails on the server side is reported, not fatal to
// the comparison: the server side runs on a test of its own.
func TestServerSideFailureIsReported(t *testing.T) {
	srv := parity.Shared(t)
	calls := 0
	table := fixture.Table[string]{Wire: func(f *fixture.Fixture) fixture.SyncFunc[string] {
		calls++
		if calls == 2 { // the fakes wire first, then the server
			f.T().Skip("not on a server")
		}
		return func(context.Context, string) error { return nil }
	}}
	rep := parity.Compare(t, srv, table, fixture.Row{Name: "skips", Key: "default/web"})
	if got := rep.Kinds(); !slices.Equal(got, []parity.Kind{parity.Error}) || !strings.Contains(rep.Divergences[0].Detail, "skipped: not on a server") {
		t.Errorf("report:\n%s\nwant one error divergence naming the skip", rep)
	}
	if t.Skipped() || t.Failed() {
		t.Error("the server side's skip reached the row's test")
	}
}

// A status update that sends back the stored status, and a patch that
// patches nothing, are no-ops on the server as on the model: redundant,
// not changes, so the idempotency check passes a controller that writes on
// every sync what is already stored (upstream sample-controller's shape),
// on both sides.
func TestRedundantUpdatesOnBothSides(t *testing.T) {
	srv := parity.Shared(t)
	seed := func() *v1alpha1.Foo {
		return &v1alpha1.Foo{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
			Spec:       v1alpha1.FooSpec{DeploymentName: "web", Replicas: ptr.To[int32](1)},
		}
	}
	writeStatus := func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
		return func(ctx context.Context, key cache.ObjectName) error {
			client := foo.Foos.Client(f).SamplecontrollerV1alpha1().Foos(key.Namespace)
			fo, err := client.Get(ctx, key.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			fo.Status.AvailableReplicas = 1 // the same on every sync
			if _, err = client.UpdateStatus(ctx, fo, metav1.UpdateOptions{}); err != nil {
				return err
			}
			_, err = client.Patch(ctx, key.Name, types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"web"}}}`), metav1.PatchOptions{})
			return err
		}
	}
	for _, side := range []struct {
		name string
		opts []fixture.Option
	}{{"model", nil}, {"server", []fixture.Option{adapter.WithServer(srv)}}} {
		t.Run(side.name, func(t *testing.T) {
			f := fixture.New(t, append([]fixture.Option{fixture.WithClientset(foo.Foos), fixture.WithObjects(seed())}, side.opts...)...)
			sync := writeStatus(f)
			first := fixture.Sync(f, sync, "default/web")
			if !first.Changed || len(first.Redundant) != 0 {
				t.Errorf("first sync: changed %v, redundant %v; want changes", first.Changed, first.Redundant)
			}
			f.Refresh()
			second := fixture.Sync(f, sync, "default/web")
			if second.Changed || len(second.Redundant) != 2 {
				t.Errorf("second sync: changed %v, redundant %v; want the status update and the patch, redundant", second.Changed, second.Redundant)
			}
		})
	}
}
