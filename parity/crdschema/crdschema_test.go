package crdschema

import (
	"context"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/crd"
	"github.com/ctrltest/ctrltest/examples/foo"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/parity"
)

func newFoo(name, deployment string, replicas *int32) *v1alpha1.Foo {
	return &v1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       v1alpha1.FooSpec{DeploymentName: deployment, Replicas: replicas},
	}
}

// write is a sync that makes one request through the Foo client.
func write(fn func(ctx context.Context, c fooClient) error) func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
	return func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
		client := foo.Foos.Client(f).SamplecontrollerV1alpha1()
		return func(ctx context.Context, key cache.ObjectName) error {
			return fn(ctx, client.Foos(key.Namespace))
		}
	}
}

type fooClient = interface {
	Create(context.Context, *v1alpha1.Foo, metav1.CreateOptions) (*v1alpha1.Foo, error)
	Update(context.Context, *v1alpha1.Foo, metav1.UpdateOptions) (*v1alpha1.Foo, error)
	UpdateStatus(context.Context, *v1alpha1.Foo, metav1.UpdateOptions) (*v1alpha1.Foo, error)
	Get(context.Context, string, metav1.GetOptions) (*v1alpha1.Foo, error)
}

func create(fo *v1alpha1.Foo) func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
	fo = fo.DeepCopy()
	fo.Namespace = "" // the request's (on the server, the row's namespace)
	return write(func(ctx context.Context, c fooClient) error {
		_, err := c.Create(ctx, fo.DeepCopy(), metav1.CreateOptions{})
		return err
	})
}

func update(name string, mutate func(*v1alpha1.Foo), status bool) func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
	return write(func(ctx context.Context, c fooClient) error {
		fo, err := c.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(fo)
		if status {
			_, err = c.UpdateStatus(ctx, fo, metav1.UpdateOptions{})
		} else {
			_, err = c.Update(ctx, fo, metav1.UpdateOptions{})
		}
		return err
	})
}

// Each case runs on the server and on the fixture's world twice: with the
// crd module's option, no divergence; without it, the divergence the
// option removes (defaulting or validation).
func TestCRDSchema(t *testing.T) {
	srv := parity.Shared(t)
	seed := newFoo("web", "web", ptr.To[int32](1))
	cases := []struct {
		name    string
		wire    func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName]
		objects []runtime.Object
		// without is the divergence without the option; wantErr, a part
		// of the sync's error on both sides ("" for none).
		without parity.Kind
		wantErr string
	}{{
		name:    "CRD defaulting on a create",
		wire:    create(newFoo("new", "new", nil)),
		without: parity.Defaulting,
	}, {
		name:    "CRD defaulting of a seed",
		wire:    write(func(context.Context, fooClient) error { return nil }),
		objects: []runtime.Object{newFoo("web", "web", nil)},
		without: parity.Defaulting,
	}, {
		name:    "CRD defaulting on an update",
		wire:    update("web", func(fo *v1alpha1.Foo) { fo.Spec.Replicas = nil }, false),
		objects: []runtime.Object{seed},
		without: parity.Defaulting,
	}, {
		name:    "a schema violation (maximum)",
		wire:    create(newFoo("big", "big", ptr.To[int32](11))),
		without: parity.Validation,
		wantErr: `spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`,
	}, {
		name:    "a schema violation (maxLength), and the CEL rules not run",
		wire:    create(newFoo("long", strings.Repeat("a", 64), nil)),
		without: parity.Validation,
		wantErr: `some validation rules were not checked because the object was invalid`,
	}, {
		name:    "a schema violation in a status update",
		wire:    update("web", func(fo *v1alpha1.Foo) { fo.Status.AvailableReplicas = -1 }, true),
		objects: []runtime.Object{seed},
		without: parity.Validation,
		wantErr: `status.availableReplicas: Invalid value: -1`,
	}, {
		name:    "a CEL rule",
		wire:    create(newFoo("nameless", "", ptr.To[int32](2))),
		without: parity.Validation,
		wantErr: `spec: Invalid value: a Foo with replicas needs a deploymentName`,
	}, {
		name:    "a transition rule (oldSelf)",
		wire:    update("web", func(fo *v1alpha1.Foo) { fo.Spec.DeploymentName = "other" }, false),
		objects: []runtime.Object{seed},
		without: parity.Validation,
		wantErr: `spec.deploymentName: Invalid value: "other": deploymentName cannot be changed once set`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			row := fixture.Row{Name: tc.name, Objects: tc.objects, Key: "default/web"}
			table := fixture.Table[cache.ObjectName]{Wire: tc.wire, Options: []fixture.Option{fixture.WithClientset(foo.Foos)}}

			without := parity.Compare(t, srv, table, row)
			t.Logf("without the CRD option:\n%s", without)
			if !slices.Contains(without.Kinds(), tc.without) {
				t.Errorf("without the CRD option: divergences %v, want one of kind %q", without.Kinds(), tc.without)
			}

			table.Options = append(table.Options, crd.Files(t, manifest))
			with := parity.Compare(t, srv, table, row)
			t.Logf("with the CRD option:\n%s", with)
			if len(with.Divergences) > 0 {
				t.Errorf("with the CRD option: the fakes still diverge from the server:\n%s", with)
			}
			for side, err := range map[string]error{"fakes": with.Fakes.Err, "server": with.Server.Err} {
				switch {
				case tc.wantErr == "" && err != nil:
					t.Errorf("%s: error %v; want none", side, err)
				case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
					t.Errorf("%s: error %v; want one containing %q", side, err, tc.wantErr)
				}
			}
		})
	}
}
