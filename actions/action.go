package actions

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrltest/ctrltest/internal/resources"
)

// Verbs of the actions client-go's fake clientsets record.
const (
	VerbCreate           = "create"
	VerbUpdate           = "update"
	VerbPatch            = "patch"
	VerbDelete           = "delete"
	VerbDeleteCollection = "delete-collection"
	VerbGet              = "get"
	VerbList             = "list"
	VerbWatch            = "watch"
)

// Action is one request a controller made through a clientset, as a plain
// value. Recorded actions come from [From]; expected ones from the
// constructors ([Create], [Update], [UpdateStatus], [Patch], [Apply],
// [Delete], and for reads [Get] and [List]) or a composite literal.
type Action struct {
	// Verb is one of the Verb constants.
	Verb string
	// Resource is the group, version and plural resource the request went to.
	Resource schema.GroupVersionResource
	// Subresource is "status", "scale", ... or empty.
	Subresource string
	// Namespace is empty for cluster-scoped resources and for requests
	// across all namespaces.
	Namespace string
	// Name is the object's name; empty for list, watch, delete-collection
	// and for a create that relies on generateName.
	Name string
	// Object is the object sent with a create or update.
	Object runtime.Object
	// PatchType and Patch are the type and body of a patch (an apply is a
	// patch of type types.ApplyPatchType).
	PatchType types.PatchType
	Patch     []byte
	// FieldManager is the field manager the request named. In an expected
	// action an empty FieldManager matches any.
	FieldManager string

	// where, when set on an expected action, decides the content match.
	where func(got Action) error
	// source is the object whose resource is still to be resolved.
	source runtime.Object
	// err records why a constructor could not build the action; Diff
	// reports it instead of matching.
	err error
}

// IsWrite reports whether the action changes state: create, update, patch,
// delete or delete-collection.
func (a Action) IsWrite() bool {
	switch a.Verb {
	case VerbCreate, VerbUpdate, VerbPatch, VerbDelete, VerbDeleteCollection:
		return true
	}
	return false
}

// IsApply reports whether the action is a server-side apply.
func (a Action) IsApply() bool {
	return a.Verb == VerbPatch && a.PatchType == types.ApplyPatchType
}

// WithSubresource returns a copy of a aimed at a subresource.
func (a Action) WithSubresource(subresource string) Action {
	a.Subresource = subresource
	return a
}

// WithFieldManager returns a copy of a that must name the field manager m.
func (a Action) WithFieldManager(m string) Action {
	a.FieldManager = m
	return a
}

// Where returns a copy of the expected action a whose content is checked by
// match instead of by comparing objects and patches: a recorded action with
// the same verb, resource, subresource, namespace and name matches when match
// returns nil. The error it returns is shown in the diff.
func (a Action) Where(match func(got Action) error) Action {
	a.where = match
	return a
}

// String formats the action as one line, for example
//
//	create apps/v1 deployments default/example-foo
//	update samplecontroller.ctrltest.dev/v1alpha1 foos/status default/example-foo
//	patch (apply) apps/v1 deployments default/example-foo
func (a Action) String() string {
	var b strings.Builder
	b.WriteString(a.Verb)
	if a.Verb == VerbPatch && a.PatchType != "" {
		fmt.Fprintf(&b, " (%s)", patchTypeName(a.PatchType))
	}
	b.WriteByte(' ')
	b.WriteString(resourceString(a.Resource, a.Subresource))
	switch {
	case a.Namespace != "" && a.Name != "":
		fmt.Fprintf(&b, " %s/%s", a.Namespace, a.Name)
	case a.Name != "":
		fmt.Fprintf(&b, " %s", a.Name)
	case a.Namespace != "":
		fmt.Fprintf(&b, " %s/", a.Namespace)
	}
	if a.Verb == VerbCreate && a.Name == "" && a.Object != nil {
		if m, err := meta.Accessor(a.Object); err == nil && m.GetGenerateName() != "" {
			fmt.Fprintf(&b, " generateName=%s", m.GetGenerateName())
		}
	}
	return b.String()
}

func resourceString(gvr schema.GroupVersionResource, sub string) string {
	if gvr.Empty() {
		return "<unknown resource>"
	}
	s := gvr.GroupVersion().String() + " " + gvr.Resource
	if sub != "" {
		s += "/" + sub
	}
	return s
}

func patchTypeName(pt types.PatchType) string {
	switch pt {
	case types.ApplyPatchType, types.ApplyCBORPatchType:
		return "apply"
	case types.JSONPatchType:
		return "json"
	case types.MergePatchType:
		return "merge"
	case types.StrategicMergePatchType:
		return "strategic"
	}
	return string(pt)
}

// From converts an action recorded by a client-go fake clientset. The object
// is not copied: client-go's fakes record a copy already.
func From(a clienttesting.Action) Action {
	out := Action{
		Verb:        a.GetVerb(),
		Resource:    a.GetResource(),
		Subresource: a.GetSubresource(),
		Namespace:   a.GetNamespace(),
	}
	if o, ok := a.(interface{ GetObject() runtime.Object }); ok {
		out.Object = o.GetObject()
		out.Name = nameOf(out.Object)
	}
	if n, ok := a.(interface{ GetName() string }); ok {
		out.Name = n.GetName()
	}
	if p, ok := a.(clienttesting.PatchAction); ok {
		out.PatchType = p.GetPatchType()
		out.Patch = p.GetPatch()
	}
	switch a := a.(type) {
	case clienttesting.CreateActionImpl:
		out.FieldManager = a.CreateOptions.FieldManager
		if a.Name != "" { // a create on a subresource names its parent
			out.Name = a.Name
		}
	case clienttesting.UpdateActionImpl:
		out.FieldManager = a.UpdateOptions.FieldManager
	case clienttesting.PatchActionImpl:
		out.FieldManager = a.PatchOptions.FieldManager
	}
	return out
}

// FromList converts actions recorded by a fake clientset, in order.
func FromList(recorded []clienttesting.Action) []Action {
	out := make([]Action, len(recorded))
	for i, a := range recorded {
		out[i] = From(a)
	}
	return out
}

// Reads returns the get and list actions of as, in order.
func Reads(as []Action) []Action {
	var out []Action
	for _, a := range as {
		if a.Verb == VerbGet || a.Verb == VerbList {
			out = append(out, a)
		}
	}
	return out
}

// Writes returns the write actions of as, in order.
func Writes(as []Action) []Action {
	var out []Action
	for _, a := range as {
		if a.IsWrite() {
			out = append(out, a)
		}
	}
	return out
}

func nameOf(obj runtime.Object) string {
	if obj == nil {
		return ""
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetName()
}

// Create returns the expected creation of obj. The resource comes from obj's
// Go type (client-go's built-in types) or, for other types, from the resolver
// the comparison is given (the fixture's knows every registered clientset);
// namespace and name come from obj.
func Create(obj runtime.Object) Action { return fromObject(VerbCreate, obj, true) }

// Update returns the expected update of obj.
func Update(obj runtime.Object) Action { return fromObject(VerbUpdate, obj, true) }

// UpdateStatus returns the expected update of obj's status subresource.
func UpdateStatus(obj runtime.Object) Action {
	return fromObject(VerbUpdate, obj, true).WithSubresource("status")
}

// Delete returns the expected deletion of obj; only obj's type, namespace
// and name count.
func Delete(obj runtime.Object) Action { return fromObject(VerbDelete, obj, false) }

// Get returns the expected read (get) of obj; only obj's type, namespace
// and name count.
func Get(obj runtime.Object) Action { return fromObject(VerbGet, obj, false) }

// List returns the expected list of the resource of example's type in
// namespace ("" for every namespace, or for a cluster-scoped resource).
// Only example's type counts: an empty value such as &appsv1.Deployment{}
// will do. Label and field selectors are not compared.
func List(example runtime.Object, namespace string) Action {
	a := fromObject(VerbList, example, false)
	a.Namespace, a.Name = namespace, ""
	return a
}

// Patch returns the expected patch of obj (whose type, namespace and name
// count) with a patch of type pt and body data. Bodies are compared as JSON
// (or YAML) documents, not as bytes.
func Patch(obj runtime.Object, pt types.PatchType, data []byte) Action {
	a := fromObject(VerbPatch, obj, false)
	a.PatchType = pt
	a.Patch = data
	return a
}

// ApplyConfiguration is what a generated apply configuration
// (k8s.io/client-go/applyconfigurations/...) offers.
type ApplyConfiguration interface {
	GetName() *string
	GetNamespace() *string
	GetKind() *string
	GetAPIVersion() *string
}

// Apply returns the expected server-side apply of config, a generated apply
// configuration such as appsv1ac.Deployment("web", "default").WithSpec(...).
// The resource comes from its apiVersion and kind.
func Apply(config ApplyConfiguration) Action {
	a := Action{Verb: VerbPatch, PatchType: types.ApplyPatchType}
	if config == nil {
		a.err = fmt.Errorf("actions.Apply: nil apply configuration")
		return a
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	a.Name, a.Namespace = str(config.GetName()), str(config.GetNamespace())
	gv, err := schema.ParseGroupVersion(str(config.GetAPIVersion()))
	kind := str(config.GetKind())
	if err != nil || kind == "" || gv.Version == "" {
		a.err = fmt.Errorf("actions.Apply: %T has no apiVersion and kind", config)
		return a
	}
	a.Patch, err = json.Marshal(config)
	if err != nil {
		a.err = fmt.Errorf("actions.Apply: encoding %T: %v", config, err)
		return a
	}
	u := &metav1.PartialObjectMetadata{}
	u.SetGroupVersionKind(gv.WithKind(kind))
	if in, ok := resources.Kube().ForGVK(gv.WithKind(kind)); ok {
		a.Resource = in.GVR
	} else {
		a.source = u
	}
	return a
}

func fromObject(verb string, obj runtime.Object, withObject bool) Action {
	a := Action{Verb: verb}
	if v := reflect.ValueOf(obj); obj == nil || v.Kind() == reflect.Pointer && v.IsNil() {
		a.err = fmt.Errorf("actions.%s: nil object", constructorName(verb))
		return a
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		a.err = fmt.Errorf("actions.%s: %T has no object metadata: %v", constructorName(verb), obj, err)
		return a
	}
	a.Namespace, a.Name = m.GetNamespace(), m.GetName()
	if withObject {
		a.Object = obj
	}
	if in, ok := resources.Kube().ForObject(obj); ok {
		a.Resource = in.GVR
	} else {
		a.source = obj
	}
	return a
}

func constructorName(verb string) string {
	switch verb {
	case VerbCreate:
		return "Create"
	case VerbUpdate:
		return "Update"
	case VerbDelete:
		return "Delete"
	case VerbPatch:
		return "Patch"
	case VerbGet:
		return "Get"
	case VerbList:
		return "List"
	}
	return verb
}
