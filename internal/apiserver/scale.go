package apiserver

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	appsv1beta1 "k8s.io/api/apps/v1beta1"
	appsv1beta2 "k8s.io/api/apps/v1beta2"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrltest/ctrltest/internal/records"
)

// ScaleSubresource is a scale subresource's JSON paths (records.ScalePaths).
type ScaleSubresource = records.ScalePaths

// scaleSubresource returns where r keeps what its scale shows; ok is
// false when r has no scale subresource.
func (r *Resource) scaleSubresource() (ScaleSubresource, bool) {
	if r.Custom {
		if r.Scale == nil {
			return ScaleSubresource{}, false
		}
		return *r.Scale, true
	}
	if b := r.builtinOf(); b == nil || !b.scale {
		return ScaleSubresource{}, false
	}
	return ScaleSubresource{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"}, true
}

// HandlesRead reports whether the model answers a read (see Read): a get
// of the scale subresource.
func HandlesRead(action clienttesting.Action) bool {
	return action.GetVerb() == "get" && action.GetSubresource() == "scale"
}

// Read answers a read the model handles (HandlesRead): a get of the scale
// subresource is the parent's replicas and selector, as an
// autoscaling/v1 Scale (the Scale of the request's group version for the
// apps/v1beta1, apps/v1beta2 and extensions/v1beta1 workloads); a
// resource without a scale subresource gets the server's 404.
func (m *Model) Read(r *Resource, action clienttesting.Action) (runtime.Object, error) {
	sub, ok := r.scaleSubresource()
	if !ok || !HandlesRead(action) {
		return nil, noSubresource(r, action)
	}
	a, ok := action.(clienttesting.GetAction)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("a get of %s/scale as %T", r.GVR.Resource, action))
	}
	parent, err := r.Store.Get(r.GVR, action.GetNamespace(), a.GetName())
	if err != nil {
		return nil, err
	}
	scale, _, err := scaleOf(r, sub, parent)
	if err != nil {
		return nil, err
	}
	return versionedScale(r.GVR.GroupVersion(), scale)
}

// scaleOf is the registry's scaleFrom<Kind> (apiextensions-apiserver's
// scaleFromCustomResource): the Scale of parent; found reports whether the
// parent has its spec replicas field.
func scaleOf(r *Resource, sub ScaleSubresource, parent runtime.Object) (*autoscalingv1.Scale, bool, error) {
	u, err := toUnstructured(parent)
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	m, err := meta.Accessor(parent)
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	specReplicas, found, err := unstructured.NestedInt64(u, splitPath(sub.SpecReplicasPath)...)
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	statusReplicas, _, err := unstructured.NestedInt64(u, splitPath(sub.StatusReplicasPath)...)
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	var selector string
	switch {
	case r.Custom:
		if sub.LabelSelectorPath != "" {
			if selector, _, err = unstructured.NestedString(u, splitPath(sub.LabelSelectorPath)...); err != nil {
				return nil, false, apierrors.NewInternalError(err)
			}
		}
	case r.GVR.Resource == "replicationcontrollers":
		set, _, _ := unstructured.NestedStringMap(u, "spec", "selector")
		selector = labels.SelectorFromSet(set).String()
	default:
		var ls *metav1.LabelSelector
		if raw, ok, _ := unstructured.NestedMap(u, "spec", "selector"); ok {
			ls = &metav1.LabelSelector{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw, ls); err != nil {
				return nil, false, apierrors.NewBadRequest(err.Error())
			}
		}
		sel, err := metav1.LabelSelectorAsSelector(ls)
		if err != nil {
			return nil, false, apierrors.NewBadRequest(err.Error())
		}
		selector = sel.String()
	}
	// No TypeMeta: a typed client's answers have none.
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{
			Name:              m.GetName(),
			Namespace:         m.GetNamespace(),
			UID:               m.GetUID(),
			ResourceVersion:   m.GetResourceVersion(),
			CreationTimestamp: m.GetCreationTimestamp(),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: int32(specReplicas)},
		Status: autoscalingv1.ScaleStatus{Replicas: int32(statusReplicas), Selector: selector},
	}, found, nil
}

// splitPath splits a JSON path (".spec.replicas").
func splitPath(p string) []string {
	return strings.Split(strings.TrimPrefix(p, "."), ".")
}

// versionedScale is scale in the Scale kind the request's group version
// answers with (ScaleREST.GroupVersionKind).
func versionedScale(gv schema.GroupVersion, scale *autoscalingv1.Scale) (runtime.Object, error) {
	var out runtime.Object
	switch gv {
	case appsv1beta1.SchemeGroupVersion:
		out = &appsv1beta1.Scale{}
	case appsv1beta2.SchemeGroupVersion:
		out = &appsv1beta2.Scale{}
	case extensionsv1beta1.SchemeGroupVersion:
		out = &extensionsv1beta1.Scale{}
	default:
		return scale, nil
	}
	sel, err := metav1.ParseToLabelSelector(scale.Status.Selector)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	var matchLabels map[string]string
	if len(sel.MatchExpressions) == 0 {
		matchLabels = sel.MatchLabels
	}
	u := map[string]any{
		"spec":   map[string]any{"replicas": int64(scale.Spec.Replicas)},
		"status": map[string]any{"replicas": int64(scale.Status.Replicas), "targetSelector": scale.Status.Selector},
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, out); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	switch s := out.(type) {
	case *appsv1beta1.Scale:
		s.ObjectMeta, s.Status.Selector = scale.ObjectMeta, matchLabels
	case *appsv1beta2.Scale:
		s.ObjectMeta, s.Status.Selector = scale.ObjectMeta, matchLabels
	case *extensionsv1beta1.Scale:
		s.ObjectMeta, s.Status.Selector = scale.ObjectMeta, matchLabels
	}
	return out, nil
}

// requestScale returns the autoscaling/v1 Scale a request sent: an
// autoscaling/v1 Scale, an older group's, or its unstructured form.
func requestScale(obj runtime.Object) (*autoscalingv1.Scale, error) {
	switch s := obj.(type) {
	case *autoscalingv1.Scale:
		return s.DeepCopy(), nil
	case *appsv1beta1.Scale:
		return &autoscalingv1.Scale{ObjectMeta: *s.ObjectMeta.DeepCopy(), Spec: autoscalingv1.ScaleSpec{Replicas: s.Spec.Replicas}}, nil
	case *appsv1beta2.Scale:
		return &autoscalingv1.Scale{ObjectMeta: *s.ObjectMeta.DeepCopy(), Spec: autoscalingv1.ScaleSpec{Replicas: s.Spec.Replicas}}, nil
	case *extensionsv1beta1.Scale:
		return &autoscalingv1.Scale{ObjectMeta: *s.ObjectMeta.DeepCopy(), Spec: autoscalingv1.ScaleSpec{Replicas: s.Spec.Replicas}}, nil
	case runtime.Unstructured:
		out := &autoscalingv1.Scale{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(s.UnstructuredContent(), out); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return out, nil
	}
	return nil, apierrors.NewBadRequest(fmt.Sprintf("expected input object type to be Scale, but %T", obj))
}

// writeScale answers an update or a patch of the scale subresource as the
// registry's ScaleREST does: the parent's spec replicas become the
// request's, through the parent's own update path (its strategy, its
// generation rule, the resourceVersion precondition the Scale carries, the
// no-op check); the answer is the parent's new Scale (for a patch, what a
// typed client makes of it: see below). A server-side apply of the Scale
// (ApplyScale) is refused with a BadRequest: it is not modelled.
func (m *Model) writeScale(r *Resource, ns string, action clienttesting.Action) (runtime.Object, bool, error) {
	sub, ok := r.scaleSubresource()
	if !ok {
		return nil, false, noSubresource(r, action)
	}
	var name string
	switch a := action.(type) {
	case clienttesting.UpdateActionImpl:
		s, err := requestScale(a.GetObject())
		if err != nil {
			return nil, false, err
		}
		if name = s.Name; name == "" {
			return nil, false, apierrors.NewBadRequest(fmt.Sprintf("an update of %s/scale names no object: the Scale's metadata.name is empty", r.GVR.Resource))
		}
	case clienttesting.PatchActionImpl:
		name = a.GetName()
	default:
		return nil, false, apierrors.NewMethodNotSupported(schema.GroupResource{Group: r.GVR.Group, Resource: r.GVR.Resource + "/scale"}, action.GetVerb())
	}
	parent, err := r.Store.Get(r.GVR, ns, name)
	if err != nil {
		return nil, false, err
	}
	old, found, err := scaleOf(r, sub, parent)
	if err != nil {
		return nil, false, err
	}
	var scale *autoscalingv1.Scale
	switch a := action.(type) {
	case clienttesting.UpdateActionImpl:
		scale, _ = requestScale(a.GetObject())
	case clienttesting.PatchActionImpl:
		if scale, err = patchScale(r, old, found, a); err != nil {
			return nil, false, err
		}
	}
	parentMeta, _ := meta.Accessor(parent)
	if r.Custom {
		if scale.Spec.Replicas < 0 {
			return nil, false, apierrors.NewInvalid(r.GVK.GroupKind(), name, field.ErrorList{
				field.Invalid(field.NewPath(sub.SpecReplicasPath), int64(scale.Spec.Replicas), "should be a non-negative integer")})
		}
	} else if scale.Spec.Replicas < 0 {
		return nil, false, apierrors.NewInvalid(schema.GroupKind{Group: "autoscaling", Kind: "Scale"}, name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), int64(scale.Spec.Replicas), "must be greater than or equal to 0")})
	}
	if uid := scale.UID; uid != "" && uid != parentMeta.GetUID() {
		return nil, false, apierrors.NewConflict(schema.GroupResource{Group: r.GVR.Group, Resource: r.GVR.Resource + "/scale"}, name,
			//lint:ignore ST1005 the server's message
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", uid, parentMeta.GetUID()))
	}
	// The parent with the new replicas: the resourceVersion precondition
	// is the Scale's (none: unconditional; a custom resource keeps its
	// own, as apiextensions-apiserver does).
	u, err := toUnstructured(parent.DeepCopyObject())
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	if err := unstructured.SetNestedField(u, int64(scale.Spec.Replicas), splitPath(sub.SpecReplicasPath)...); err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	updated, err := r.New()
	if err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	if uu, ok := updated.(*unstructured.Unstructured); ok {
		uu.Object = u
	} else if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, updated); err != nil {
		return nil, false, apierrors.NewInternalError(err)
	}
	um, _ := meta.Accessor(updated)
	unconditional := true
	switch {
	case scale.ResourceVersion != "":
		um.SetResourceVersion(scale.ResourceVersion)
		unconditional = false
	case !r.Custom:
		um.SetResourceVersion("")
	}
	manager := ""
	if a, ok := action.(clienttesting.UpdateActionImpl); ok {
		manager = a.UpdateOptions.FieldManager
	} else if a, ok := action.(clienttesting.PatchActionImpl); ok {
		manager = a.PatchOptions.FieldManager
	}
	obj, changed, err := m.update(r, ns, "", updated, write{manager: manager, unconditional: unconditional, scale: true})
	if err != nil {
		return nil, false, err
	}
	if _, ok := action.(clienttesting.PatchActionImpl); ok {
		// The server answers with the Scale, which a typed client's
		// Patch(..., "scale") decodes into an empty object of the
		// parent's type (its decoder makes a Scale and leaves the
		// result it was given alone): the fakes' Patch casts the answer
		// to the parent's type.
		empty, err := r.New()
		if err == nil {
			empty.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		}
		return empty, changed, err
	}
	answer, _, err := scaleOf(r, sub, obj)
	if err != nil {
		return nil, changed, err
	}
	out, err := versionedScale(r.GVR.GroupVersion(), answer)
	return out, changed, err
}

// patchScale applies a patch to the parent's Scale (the patch handler's
// work on the subresource's current object).
func patchScale(r *Resource, old *autoscalingv1.Scale, found bool, a clienttesting.PatchActionImpl) (*autoscalingv1.Scale, error) {
	current := old.DeepCopy()
	if r.Custom && !found {
		current.Spec.Replicas = math.MinInt32 // unset: apiextensions-apiserver's marker
	}
	original, err := json.Marshal(current)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	var patched []byte
	switch a.GetPatchType() {
	case types.JSONPatchType:
		p, err := jsonpatch.DecodePatch(a.GetPatch())
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		if patched, err = p.Apply(original); err != nil {
			return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "patch", r.GVR.GroupResource(), a.GetName(), err.Error(), 0, false)
		}
	case types.MergePatchType:
		if patched, err = jsonpatch.MergePatch(original, a.GetPatch()); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	case types.StrategicMergePatchType:
		if r.Custom {
			return nil, unsupportedPatch(a.GetPatchType())
		}
		if patched, err = strategicpatch.StrategicMergePatch(original, a.GetPatch(), &autoscalingv1.Scale{}); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
	default:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s patches of %s/scale are not modelled (the server-side apply of a Scale)", a.GetPatchType(), r.GVR.Resource))
	}
	out := &autoscalingv1.Scale{}
	if err := json.Unmarshal(patched, out); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if r.Custom && out.Spec.Replicas == math.MinInt32 {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the spec replicas field %q cannot be empty", r.Scale.SpecReplicasPath))
	}
	return out, nil
}
