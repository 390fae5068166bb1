package crdschema

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/crd"
	"github.com/ctrltest/ctrltest/examples/foo"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/parity"
)

var fooGVR = v1alpha1.SchemeGroupVersion.WithResource("foos")

// markSelected is a sync that lists the Foos of its key's namespace with
// fieldSelector, through the typed client or the dynamic one, and labels
// each it got selected=yes: the world shows what the list selected.
func markSelected(fieldSelector string, dynamic bool) func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
	return func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
		typed := foo.Foos.Client(f).SamplecontrollerV1alpha1()
		return func(ctx context.Context, key cache.ObjectName) error {
			var names []string
			opts := metav1.ListOptions{FieldSelector: fieldSelector}
			if dynamic {
				list, err := f.Dynamic().Resource(fooGVR).Namespace(key.Namespace).List(ctx, opts)
				if err != nil {
					return err
				}
				for _, o := range list.Items {
					names = append(names, o.GetName())
				}
			} else {
				list, err := typed.Foos(key.Namespace).List(ctx, opts)
				if err != nil {
					return err
				}
				for _, o := range list.Items {
					names = append(names, o.Name)
				}
			}
			slices.Sort(names)
			for _, n := range names {
				if _, err := typed.Foos(key.Namespace).Patch(ctx, n, types.MergePatchType, []byte(`{"metadata":{"labels":{"selected":"yes"}}}`), metav1.PatchOptions{}); err != nil {
					return err
				}
			}
			return nil
		}
	}
}

// scaleTo is a sync that gets its key's Foo's scale through the dynamic
// client and updates it to replicas.
func scaleTo(replicas int64) func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
	return func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
		return func(ctx context.Context, key cache.ObjectName) error {
			foos := f.Dynamic().Resource(fooGVR).Namespace(key.Namespace)
			s, err := foos.Get(ctx, key.Name, metav1.GetOptions{}, "scale")
			if err != nil {
				return err
			}
			if s.GetKind() != "Scale" || s.GetAPIVersion() != "autoscaling/v1" {
				return fmt.Errorf("the scale is a %s %s", s.GetAPIVersion(), s.GetKind())
			}
			if r, _, _ := unstructured.NestedInt64(s.Object, "spec", "replicas"); r != 1 {
				return fmt.Errorf("the scale's spec.replicas is %d; want 1", r)
			}
			if err := unstructured.SetNestedField(s.Object, replicas, "spec", "replicas"); err != nil {
				return err
			}
			_, err = foos.Update(ctx, s, metav1.UpdateOptions{}, "scale")
			return err
		}
	}
}

// scalePatch is a sync that merge-patches its key's Foo's scale through
// the dynamic client and checks the answer is the Scale after the patch.
func scalePatch(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
	return func(ctx context.Context, key cache.ObjectName) error {
		s, err := f.Dynamic().Resource(fooGVR).Namespace(key.Namespace).Patch(ctx, key.Name, types.MergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{}, "scale")
		if err != nil {
			return err
		}
		if r, _, _ := unstructured.NestedInt64(s.Object, "spec", "replicas"); s.GetKind() != "Scale" || s.GetName() != key.Name || r != 3 {
			return fmt.Errorf("the answer to the scale patch: kind %q name %q spec.replicas %d", s.GetKind(), s.GetName(), r)
		}
		return nil
	}
}

// What the CRD declares besides schemas: a field selector on its
// selectable field and its scale subresource, on the server and on the
// fixture's world with the crd module's option, no divergence; without
// it, the fakes refuse both (the server's 400 and 404) and diverge.
func TestCRDResource(t *testing.T) {
	srv := parity.Shared(t)
	foos := []runtime.Object{
		newFoo("web", "web", ptr.To[int32](1)),
		newFoo("api", "api", ptr.To[int32](1)),
		newFoo("web2", "web", ptr.To[int32](1)),
	}
	cases := []struct {
		name    string
		wire    func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName]
		without bool // the row diverges without the option
		wantErr string
	}{{
		name:    "a field selector on a selectable field (typed list)",
		wire:    markSelected("spec.deploymentName=web", false),
		without: true,
	}, {
		name:    "a field selector on a selectable field (dynamic list, !=)",
		wire:    markSelected("spec.deploymentName!=web", true),
		without: true,
	}, {
		name:    "a field selector on a field that is not selectable",
		wire:    markSelected("spec.replicas=1", false),
		wantErr: "field label not supported: spec.replicas",
	}, {
		name:    "a scale get and update",
		wire:    scaleTo(4),
		without: true,
	}, {
		name:    "a scale merge patch (dynamic)",
		wire:    scalePatch,
		without: true,
	}, {
		name:    "a scale update above the schema's maximum",
		wire:    scaleTo(11),
		without: true,
		wantErr: "spec.replicas in body should be less than or equal to 10",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			row := fixture.Row{Name: tc.name, Objects: foos, Key: "default/web"}
			table := fixture.Table[cache.ObjectName]{Wire: tc.wire, Options: []fixture.Option{fixture.WithClientset(foo.Foos)}}

			without := parity.Compare(t, srv, table, row)
			t.Logf("without the CRD option:\n%s", without)
			if tc.without && len(without.Divergences) == 0 {
				t.Errorf("without the CRD option: no divergence; want the fakes' refusal (the server's 400 or 404) to diverge")
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

var widgetGVR = schema.GroupVersionResource{Group: "crd.ctrltest.dev", Version: "v1", Resource: "widgets"}

func widget(name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "crd.ctrltest.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"namespace": "default", "name": name},
		"spec":     spec,
	}}
}

// A custom resource with a CRD and nothing else (no clientset, no Go
// type), served from its manifest as unstructured: a controller on the
// dynamic client reads a defaulted seed, writes its status, lists by a
// selectable field, scales it and creates one: no divergence.
func TestCRDOnly(t *testing.T) {
	srv := parity.Shared(t)
	cases := []struct {
		name    string
		sync    func(ctx context.Context, f *fixture.Fixture, ns string) error
		wantErr string
	}{{
		name: "a status update of a defaulted seed",
		sync: func(ctx context.Context, f *fixture.Fixture, ns string) error {
			widgets := f.Dynamic().Resource(widgetGVR).Namespace(ns)
			w, err := widgets.Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return err
			}
			color, _, _ := unstructured.NestedString(w.Object, "spec", "color")
			if err := unstructured.SetNestedField(w.Object, color, "status", "seen"); err != nil {
				return err
			}
			_, err = widgets.UpdateStatus(ctx, w, metav1.UpdateOptions{})
			return err
		},
	}, {
		name: "a selectable field and a scale update",
		sync: func(ctx context.Context, f *fixture.Fixture, ns string) error {
			widgets := f.Dynamic().Resource(widgetGVR).Namespace(ns)
			list, err := widgets.List(ctx, metav1.ListOptions{FieldSelector: "spec.color=blue"})
			if err != nil {
				return err
			}
			for _, w := range list.Items {
				s, err := widgets.Get(ctx, w.GetName(), metav1.GetOptions{}, "scale")
				if err != nil {
					return err
				}
				if err := unstructured.SetNestedField(s.Object, int64(3), "spec", "replicas"); err != nil {
					return err
				}
				if _, err := widgets.Update(ctx, s, metav1.UpdateOptions{}, "scale"); err != nil {
					return err
				}
			}
			return nil
		},
	}, {
		name: "creates the schema and a CEL rule refuse, then one it defaults",
		sync: func(ctx context.Context, f *fixture.Fixture, ns string) error {
			widgets := f.Dynamic().Resource(widgetGVR).Namespace(ns)
			bad := widget("bad", map[string]any{"color": "green"})
			bad.SetNamespace(ns)
			if _, err := widgets.Create(ctx, bad, metav1.CreateOptions{}); err == nil {
				return fmt.Errorf("the green widget was created")
			}
			big := widget("big", map[string]any{"color": "blue", "size": int64(4)})
			big.SetNamespace(ns)
			if _, err := widgets.Create(ctx, big, metav1.CreateOptions{}); err == nil || !strings.Contains(err.Error(), "a blue widget is at most 3 big") {
				return fmt.Errorf("the big blue widget: %v; want the CEL rule's refusal", err)
			}
			good := widget("new", map[string]any{"size": int64(2)})
			good.SetNamespace(ns)
			_, err := widgets.Create(ctx, good, metav1.CreateOptions{})
			return err
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			row := fixture.Row{Name: tc.name, Key: "default/web", Objects: []runtime.Object{
				widget("web", map[string]any{"size": int64(1)}),
				widget("blue", map[string]any{"color": "blue", "size": int64(1)}),
			}}
			table := fixture.Table[cache.ObjectName]{
				Wire: func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
					return func(ctx context.Context, key cache.ObjectName) error { return tc.sync(ctx, f, key.Namespace) }
				},
				Options: []fixture.Option{crd.Files(t, widgets)},
			}
			with := parity.Compare(t, srv, table, row)
			t.Logf("with the CRD option:\n%s", with)
			if len(with.Divergences) > 0 {
				t.Errorf("the fakes diverge from the server:\n%s", with)
			}
			for side, err := range map[string]error{"fakes": with.Fakes.Err, "server": with.Server.Err} {
				if err != nil {
					t.Errorf("%s: error %v; want none", side, err)
				}
			}
		})
	}
}
