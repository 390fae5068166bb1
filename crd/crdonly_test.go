package crd

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/tbtest"
)

var widgetGVR = schema.GroupVersionResource{Group: "crd.ctrltest.dev", Version: "v1", Resource: "widgets"}

func widget(name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "crd.ctrltest.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"namespace": "default", "name": name},
		"spec":     spec,
	}}
	return u
}

// seenSync is a controller written with the dynamic client: it notes in a
// Widget's status the color it saw.
func seenSync(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(ctx context.Context, key string) error {
		ns, name, _ := strings.Cut(key, "/")
		widgets := f.Dynamic().Resource(widgetGVR).Namespace(ns)
		w, err := widgets.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		color, _, _ := unstructured.NestedString(w.Object, "spec", "color")
		if err := unstructured.SetNestedField(w.Object, color, "status", "seen"); err != nil {
			return err
		}
		_, err = widgets.UpdateStatus(ctx, w, metav1.UpdateOptions{})
		return err
	}
}

// A CRD with no clientset and no Go type is served from its manifest
// alone: its seeds are defaulted, a controller on the dynamic client syncs
// once and settles, its schema refuses what the server refuses, and its
// selectable field and scale work.
func TestCRDOnlyFromTheManifest(t *testing.T) {
	f := fixture.New(t, Files(t, "testdata/widgets.yaml"), fixture.WithObjects(widget("w", map[string]any{"size": int64(1)})))
	sync := seenSync(f)
	res := fixture.Sync(f, sync, "default/w")
	if res.Err != nil {
		t.Fatalf("sync: %v", res.Err)
	}
	if report := fixture.CheckIdempotent(f, sync, "default/w"); report != "" {
		t.Error(report)
	}
	ctx := f.Context()
	widgets := f.Dynamic().Resource(widgetGVR).Namespace("default")
	w, err := widgets.Get(ctx, "w", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if seen, _, _ := unstructured.NestedString(w.Object, "status", "seen"); seen != "red" {
		t.Errorf("status.seen is %q; want the schema's default color, red", seen)
	}
	_, err = widgets.Create(ctx, widget("big", map[string]any{"size": int64(9)}), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.size: Invalid value: 9: spec.size in body should be less than or equal to 5") {
		t.Errorf("a create over the schema's maximum: %v; want the server's 422", err)
	}
	_, err = widgets.Create(ctx, widget("bigblue", map[string]any{"color": "blue", "size": int64(4)}), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `Widget.crd.ctrltest.dev "bigblue" is invalid: spec: Invalid value: a blue widget is at most 3 big`) {
		t.Errorf("a create the CEL rule refuses: %v; want the server's 422", err)
	}
	_, err = widgets.Create(ctx, widget("blue", map[string]any{"color": "blue"}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	list, err := widgets.List(ctx, metav1.ListOptions{FieldSelector: "spec.color=blue"})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetName() != "blue" {
		t.Errorf("widgets with spec.color=blue: %v, %v; want blue", list, err)
	}
	s, err := widgets.Get(ctx, "w", metav1.GetOptions{}, "scale")
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(s.Object, "spec", "replicas"); r != 1 {
		t.Errorf("the scale's spec.replicas is %d; want 1", r)
	}
	discovered, err := f.Discovery().ServerResourcesForGroupVersion("crd.ctrltest.dev/v1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range discovered.APIResources {
		names = append(names, r.Name)
	}
	if strings.Join(names, " ") != "widgets widgets/scale widgets/status" {
		t.Errorf("discovery of crd.ctrltest.dev/v1: %q; want widgets, widgets/scale and widgets/status", names)
	}
}

// A seed of a CRD-only resource that the schema refuses fails the test.
func TestCRDOnlySeedViolatingTheSchema(t *testing.T) {
	rec := tbtest.Run(t, func(t testing.TB) {
		f := fixture.New(t, Files(t, "testdata/widgets.yaml"), fixture.WithObjects(widget("w", map[string]any{"color": "green"})))
		f.Start()
	})
	want := `spec.color: Unsupported value: "green"`
	if !rec.Failed() || !strings.Contains(rec.String(), want) {
		t.Errorf("failed %v, messages:\n%s\nwant one containing %q", rec.Failed(), rec, want)
	}
}
