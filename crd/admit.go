package crd

import (
	"context"
	"fmt"
	"reflect"

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

// Option returns the fixture option that gives the server model what
// kube-apiserver does with the custom resources of the definitions:
// pruning, defaulting and validation (fixture.WithDefaulting and
// fixture.WithValidation, see [Definitions.Default] and
// [Definitions.Validate]), on every write and every seed; field selectors
// on each version's selectable fields and its scale subresource
// (fixture.WithCustomResources). A registration of one of their kinds (a
// generated clientset, fixture.WithTypes) whose plural, scope or status
// subresource is not the CRD's fails the test, naming both; a kind no
// registration serves is served as unstructured objects (the dynamic and
// metadata clients, controller-runtime's unstructured client). Objects of
// other kinds are left alone. The schemas are compiled already: the option
// costs a fixture nothing until it writes or seeds a custom resource.
func (d *Definitions) Option() fixture.Option {
	return fixture.Options{
		fixture.WithCustomResources(d.customResources()...),
		fixture.WithDefaulting(func(obj runtime.Object) {
			if err := d.Default(obj); err != nil {
				panic(err) // the fixture fails the test, naming the object
			}
		}),
		fixture.WithValidation(func(in fixture.Validation) field.ErrorList {
			return d.Validate(in.Object, in.Old, in.Subresource)
		}),
	}
}

// customResources describes each served version of each definition to
// the fixture.
func (d *Definitions) customResources() []records.CustomResource {
	var out []records.CustomResource
	for _, c := range d.crds {
		r := c.resource
		for _, v := range r.Versions {
			cr := records.CustomResource{
				GVK:              schema.GroupVersionKind{Group: r.Group, Version: v.Name, Kind: r.Kind},
				Resource:         r.Plural,
				Namespaced:       r.Namespaced,
				Status:           v.Status,
				SelectableFields: v.SelectableFields,
				Source:           "CustomResourceDefinition " + r.Name + " of " + c.source,
			}
			if v.Scale != nil {
				cr.Scale = &records.CustomResourceScale{
					SpecReplicasPath:   v.Scale.SpecReplicasPath,
					StatusReplicasPath: v.Scale.StatusReplicasPath,
					LabelSelectorPath:  v.Scale.LabelSelectorPath,
				}
			}
			out = append(out, cr)
		}
	}
	return out
}

// Default does to obj, a custom resource of one of the definitions (typed,
// as a generated clientset sends it, or unstructured), what the API
// server does when it decodes one: it drops the fields the schema does
// not know (unless x-kubernetes-preserve-unknown-fields keeps them), and
// the nulls of fields that are not nullable and have no default, then
// applies the schema's defaults. obj must carry its kind (apiVersion and
// kind); an object of another kind is left alone. A typed object is
// converted to unstructured and back, so a field of its Go type that the
// schema does not know is dropped, as the server drops it; an error says
// the defaulted object does not fit the Go type.
func (d *Definitions) Default(obj runtime.Object) error {
	v := d.byGVK[obj.GetObjectKind().GroupVersionKind()]
	if v == nil || v.structural == nil {
		return nil
	}
	if u, ok := obj.(runtime.Unstructured); ok {
		v.decode(u.UnstructuredContent())
		return nil
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return fmt.Errorf("crd: %s: converting %T to unstructured: %v", v.gvk.Kind, obj, err)
	}
	v.decode(content)
	target := reflect.ValueOf(obj)
	if target.Kind() != reflect.Pointer || target.IsNil() {
		return fmt.Errorf("crd: %s: %T is not a pointer to a struct", v.gvk.Kind, obj)
	}
	fresh := reflect.New(target.Type().Elem())
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(content, fresh.Interface()); err != nil {
		return fmt.Errorf("crd: %s: the defaulted object does not fit %T (do the CRD's schema and the Go type agree?): %v", v.gvk.Kind, obj, err)
	}
	target.Elem().Set(fresh.Elem())
	return nil
}

// decode is what apiextensions-apiserver's codec does to a decoded custom
// resource (schemaCoercingDecoder, then unstructuredDefaulter).
func (v *version) decode(content map[string]any) {
	if !v.preserveUnknown {
		structuralpruning.Prune(content, v.structural, true)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(content, v.structural)
	}
	structuraldefaulting.Default(content, v.structural)
}

// Validate returns what the API server's custom resource strategy finds
// wrong with obj, as kube-apiserver's registry would store it: the OpenAPI
// schema (with the server's paths and messages), the embedded objects'
// metadata, the list types and the CEL rules (x-kubernetes-validations).
// old is nil on a create, or the stored object on an update, for the
// transition rules (oldSelf) and the ratcheting of unchanged invalid
// fields; subresource "status" validates as the status strategy does.
// obj and old must carry their kind; an object of another kind is valid.
// A typed object is validated as the server decodes its encoding: pruned
// and defaulted, so that the null a nil pointer without omitempty encodes
// to is dropped where the server drops it (a field that is not nullable
// and has no default).
func (d *Definitions) Validate(obj, old runtime.Object, subresource string) field.ErrorList {
	v := d.byGVK[obj.GetObjectKind().GroupVersionKind()]
	if v == nil {
		return nil
	}
	// The strategy needs no request: validation only.
	ctx := context.Background()
	u, err := v.unstructured(obj)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	if old == nil {
		if v.status {
			// A typed client sends "status": {}, which the strategy's
			// PrepareForCreate drops.
			if s, ok := u.Object["status"].(map[string]any); ok && len(s) == 0 {
				delete(u.Object, "status")
			}
		}
		return v.validate(ctx, u)
	}
	uo, err := v.unstructured(old)
	if err != nil {
		return field.ErrorList{field.InternalError(nil, err)}
	}
	if subresource == "status" && v.validateStatus != nil {
		return v.validateStatus(ctx, u, uo)
	}
	return v.validateUpdate(ctx, u, uo)
}

// unstructured returns obj as the strategy reads it. An unstructured
// object is the one Default decoded. A typed one is encoded as a client
// sends it, then decoded as the server decodes a request body (or a
// stored object): its Go type may encode what the server never
// validates, such as the null of a nil pointer whose json tag has no
// omitempty, which the server prunes when the field is not nullable and
// has no default.
func (v *version) unstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("crd: %s: converting %T to unstructured: %v", v.gvk.Kind, obj, err)
	}
	if v.structural != nil {
		v.decode(content)
	}
	u := &unstructured.Unstructured{Object: content}
	u.SetGroupVersionKind(v.gvk)
	return u, nil
}
