package crd_test

import (
	"context"
	"fmt"

	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/crd"
	"github.com/ctrltest/ctrltest/fixture"
)

var widgets = schema.GroupVersionResource{Group: "crd.ctrltest.dev", Version: "v1", Resource: "widgets"}

// newWidget is a Widget of testdata/widgets.yaml, a custom resource with a
// CRD and nothing else: no generated clientset, no Go type.
func newWidget(name string, spec, status map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "crd.ctrltest.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"namespace": "default", "name": name},
		"spec":     spec,
	}}
	if status != nil {
		u.Object["status"] = status
	}
	return u
}

// reporter is a controller written with a dynamic informer and the
// dynamic client: it reports a Widget's color and size in its status.
func reporter(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
	lister := f.DynamicInformers().ForResource(widgets).Lister()
	client := f.Dynamic().Resource(widgets)
	return func(ctx context.Context, key cache.ObjectName) error {
		obj, err := lister.ByNamespace(key.Namespace).Get(key.Name)
		if err != nil {
			return err
		}
		w := obj.(*unstructured.Unstructured).DeepCopy() // never change the cache
		color, _, _ := unstructured.NestedString(w.Object, "spec", "color")
		size, _, _ := unstructured.NestedInt64(w.Object, "spec", "size")
		report := fmt.Sprintf("%d %s", size, color)
		if seen, _, _ := unstructured.NestedString(w.Object, "status", "seen"); seen == report {
			return nil
		}
		if err := unstructured.SetNestedField(w.Object, report, "status", "seen"); err != nil {
			return err
		}
		_, err = client.Namespace(key.Namespace).UpdateStatus(ctx, w, metav1.UpdateOptions{})
		return err
	}
}

// A dynamic-informer controller on a CRD served from its manifest alone:
// the seed gets the schema's default color, the controller reports it,
// settles on the second sync, and a CEL rule of the schema refuses a seed
// a server would refuse.
func TestDynamicInformerControllerOnACRD(t *testing.T) {
	schema := crd.Files(t, "testdata/widgets.yaml")
	reported := newWidget("w", map[string]any{"color": "red", "size": int64(2)}, map[string]any{"seen": "2 red"})
	fixture.Table[cache.ObjectName]{
		Wire:    reporter,
		Options: []fixture.Option{schema},
		Rows: []fixture.Row{{
			Name:        "a widget without a color gets the CRD's default, and the report",
			Key:         "default/w",
			Objects:     []runtime.Object{newWidget("w", map[string]any{"size": int64(2)}, nil)},
			WantActions: []actions.Action{actions.UpdateStatus(reported)},
		}, {
			Name:    "a reported widget: nothing to do",
			Key:     "default/w",
			Objects: []runtime.Object{reported},
		}},
	}.Run(t)
}
