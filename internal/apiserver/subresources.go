package apiserver

import (
	"sort"

	appsv1beta1 "k8s.io/api/apps/v1beta1"
	appsv1beta2 "k8s.io/api/apps/v1beta2"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Subresource is a subresource other than status that the model serves,
// as kube-apiserver's discovery lists it.
type Subresource struct {
	// Name is the subresource's name ("scale", "eviction").
	Name string
	// GVK is the kind of its requests and answers (autoscaling/v1 Scale,
	// policy/v1 Eviction).
	GVK schema.GroupVersionKind
	// Verbs are the verbs it serves, sorted.
	Verbs []string
}

// Subresources returns the subresources other than status that the model
// serves for r, by name: scale (the built-in workloads whose record has scale, a
// custom resource with a Resource.Scale) and a Pod's eviction. Their kinds
// are those the registries' GroupVersionKind methods give (ScaleREST,
// EvictionREST; apiextensions-apiserver's discovery for a custom
// resource's Scale). It reads r's GVR, Custom and Scale only.
func (r *Resource) Subresources() []Subresource {
	var out []Subresource
	if b := r.builtinOf(); b != nil && b.eviction && r.GVR.Version == "v1" {
		out = append(out, Subresource{Name: "eviction", GVK: schema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "Eviction"}, Verbs: []string{"create"}})
	}
	if _, ok := r.scaleSubresource(); ok {
		gvk := schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
		switch gv := r.GVR.GroupVersion(); gv {
		case appsv1beta1.SchemeGroupVersion, appsv1beta2.SchemeGroupVersion, extensionsv1beta1.SchemeGroupVersion:
			if !r.Custom {
				gvk = gv.WithKind("Scale")
			}
		}
		out = append(out, Subresource{Name: "scale", GVK: gvk, Verbs: []string{"get", "patch", "update"}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
