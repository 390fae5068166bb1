package parity

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
)

// A filledFunc returns the paths (as diffObjects names them) of the fields
// the server fills in when it creates o, a resource of gvr: its defaults
// and what its strategy sets. ok is false when it cannot tell; the fields
// a side left empty and the other set then count as defaulted.
type filledFunc func(o k8sruntime.Object, gvr schema.GroupVersionResource) (paths map[string]bool, ok bool)

// fills reports whether the server fills in the field at path when it
// creates o; true when filled is nil or cannot tell.
func (filled filledFunc) fills(o k8sruntime.Object, gvr schema.GroupVersionResource, path string) bool {
	if filled == nil || o == nil {
		return true
	}
	paths, ok := filled(o, gvr)
	return !ok || paths[path]
}

// serverFilled asks srv which fields it fills in: a dry-run create of the
// object (with a generated name, in the default namespace when it is
// namespaced, without the metadata a create may not carry) shows them.
// "The fakes left a field empty that the server set" is then defaulting
// only when the server sets that field on its own: a status count that a
// controller wrote from what its informer held is not a default, though
// the fakes' count is 0.
func serverFilled(ctx context.Context, srv *Server) filledFunc {
	client, err := dynamic.NewForConfig(srv.Config)
	if err != nil {
		return nil
	}
	var mu sync.Mutex
	cache := map[k8sruntime.Object]map[string]bool{}
	return func(o k8sruntime.Object, gvr schema.GroupVersionResource) (map[string]bool, bool) {
		mu.Lock()
		paths, seen := cache[o]
		mu.Unlock()
		if seen {
			return paths, paths != nil
		}
		paths = dryRunFilled(ctx, client, o, gvr)
		mu.Lock()
		cache[o] = paths
		mu.Unlock()
		return paths, paths != nil
	}
}

// dryRunFilled is serverFilled's dry run of o; nil when it fails.
func dryRunFilled(ctx context.Context, client dynamic.Interface, o k8sruntime.Object, gvr schema.GroupVersionResource) map[string]bool {
	u, err := toUnstructured(o)
	if err != nil {
		return nil
	}
	name := u.GetName()
	if name == "" {
		name = u.GetGenerateName()
	}
	ns := u.GetNamespace()
	clean := &unstructured.Unstructured{Object: map[string]any{}}
	for k, v := range u.Object {
		if k != "metadata" {
			clean.Object[k] = v
		}
	}
	clean.SetGenerateName("parity-defaults-")
	clean.SetLabels(u.GetLabels())
	clean.SetAnnotations(u.GetAnnotations())
	clean.SetOwnerReferences(u.GetOwnerReferences())
	clean.SetFinalizers(u.GetFinalizers())
	var ri dynamic.ResourceInterface = client.Resource(gvr)
	if ns != "" {
		ri = client.Resource(gvr).Namespace(metav1.NamespaceDefault)
	}
	created, err := ri.Create(ctx, clean, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		return nil
	}
	// Compare as the sides' objects are compared, named as o was.
	created.SetName(name)
	created.SetGenerateName(u.GetGenerateName())
	created.SetNamespace(ns)
	paths := map[string]bool{}
	for _, d := range diffObjects(u, created) {
		if d.defaulted() {
			paths[d.path] = true
		}
	}
	return paths
}

// toUnstructured converts o, with its apiVersion and kind set (from
// client-go's scheme when o is typed and does not carry them).
func toUnstructured(o k8sruntime.Object) (*unstructured.Unstructured, error) {
	if u, ok := o.(*unstructured.Unstructured); ok {
		return u.DeepCopy(), nil
	}
	m, err := k8sruntime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	if u.GetKind() == "" {
		gvks, _, err := scheme.Scheme.ObjectKinds(o)
		if err != nil {
			return nil, err
		}
		if len(gvks) == 0 {
			return nil, fmt.Errorf("parity: no kind for %T", o)
		}
		u.SetGroupVersionKind(gvks[0])
	}
	if _, err := meta.Accessor(u); err != nil {
		return nil, err
	}
	return u, nil
}
