package apiserver

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clienttesting "k8s.io/client-go/testing"
)

// pdbGVR is the resource of the budgets an eviction honours.
var pdbGVR = policyv1.SchemeGroupVersion.WithResource("poddisruptionbudgets")

// maxDisruptedPods is the eviction handler's MaxDisruptedPodSize.
const maxDisruptedPods = 2000

// evictionOf returns the policy/v1 Eviction a request sent.
func evictionOf(obj runtime.Object) (*policyv1.Eviction, error) {
	switch e := obj.(type) {
	case *policyv1.Eviction:
		return e.DeepCopy(), nil
	case *policyv1beta1.Eviction:
		return &policyv1.Eviction{ObjectMeta: *e.ObjectMeta.DeepCopy(), DeleteOptions: e.DeleteOptions.DeepCopy()}, nil
	case runtime.Unstructured:
		out := &policyv1.Eviction{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(e.UnstructuredContent(), out); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return out, nil
	}
	return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Eviction object: %T", obj))
}

// evictionDryRun reports whether an eviction request asks for a dry run
// in its body's delete options (its create options are dryRun's).
func evictionDryRun(a clienttesting.CreateActionImpl) bool {
	if a.GetSubresource() != "eviction" || a.GetObject() == nil {
		return false
	}
	e, err := evictionOf(a.GetObject())
	return err == nil && e.DeleteOptions != nil && len(e.DeleteOptions.DryRun) > 0
}

// evict answers a create of pods/eviction as kube-apiserver's
// EvictionREST does (k8s.io/kubernetes pkg/registry/core/pod/storage/
// eviction.go): a pod that is pending, finished or being deleted is
// deleted at once; otherwise the PodDisruptionBudget that selects it
// decides: none, the pod is deleted; more than one, a 500; a budget whose
// status the disruption controller has not caught up with
// (observedGeneration below generation), or that allows no disruption, a
// 429 TooManyRequests; otherwise its disruptionsAllowed is decremented
// (the pod is noted in disruptedPods) and the pod deleted. A pod that is
// not ready is deleted without spending the budget when the budget's
// unhealthyPodEvictionPolicy is AlwaysAllow or the application is healthy
// enough. The pod gets the DisruptionTarget condition before its delete
// (graceful for a pod bound to a node). dry: the request is a dry run
// (r's store is the dry one already).
func (m *Model) evict(r *Resource, ns string, a clienttesting.CreateActionImpl, dry bool) (runtime.Object, bool, error) {
	if b := r.builtinOf(); b == nil || !b.eviction {
		return nil, false, noSubresource(r, a)
	}
	eviction, err := evictionOf(a.GetObject())
	if err != nil {
		return nil, false, err
	}
	name := eviction.Name
	if name == "" || (a.Name != "" && a.Name != name) {
		return nil, false, apierrors.NewBadRequest("name in URL does not match name in Eviction object")
	}
	evictionGK := schema.GroupKind{Group: "policy", Kind: "Eviction"}
	if o := eviction.DeleteOptions; o != nil && o.IgnoreStoreReadErrorWithClusterBreakingPotential != nil && *o.IgnoreStoreReadErrorWithClusterBreakingPotential {
		return nil, false, apierrors.NewInvalid(evictionGK, name, field.ErrorList{
			field.Invalid(field.NewPath("deleteOptions").Child("ignoreStoreReadErrorWithClusterBreakingPotential"), true, "can not be set for pod eviction, try after removing the option")})
	}
	// propagateDryRun
	opts := eviction.DeleteOptions
	switch {
	case opts == nil:
		opts = &metav1.DeleteOptions{DryRun: a.CreateOptions.DryRun}
	case len(opts.DryRun) == 0:
		opts.DryRun = a.CreateOptions.DryRun
	case len(a.CreateOptions.DryRun) > 0 && !reflect.DeepEqual(a.CreateOptions.DryRun, opts.DryRun):
		//lint:ignore ST1005 the server's message
		return nil, false, apierrors.NewInternalError(fmt.Errorf("Non-matching dry-run options in request and content: %v and %v", a.CreateOptions.DryRun, opts.DryRun))
	}
	obj, err := r.Store.Get(r.GVR, ns, name)
	if err != nil {
		return nil, false, err
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, false, apierrors.NewInternalError(fmt.Errorf("pods %q is stored as %T", name, obj))
	}
	rvUnset := opts.Preconditions == nil || opts.Preconditions.ResourceVersion == nil
	if canIgnorePDB(pod) {
		o := opts
		if shouldEnforceResourceVersion(pod) && rvUnset {
			o = withResourceVersion(opts, pod.ResourceVersion)
		}
		return m.deleteEvicted(r, ns, name, o, dry)
	}
	budgets, err := m.budgetsOf(r, pod)
	if err != nil {
		return nil, false, err
	}
	switch len(budgets) {
	case 0:
		return m.deleteEvicted(r, ns, name, opts, dry)
	case 1:
	default:
		return nil, false, &apierrors.StatusError{ErrStatus: metav1.Status{
			Status:  metav1.StatusFailure,
			Code:    http.StatusInternalServerError,
			Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
		}}
	}
	pdb := budgets[0]
	if !isPodReady(pod) {
		if p := pdb.Spec.UnhealthyPodEvictionPolicy; (p != nil && *p == policyv1.AlwaysAllow) ||
			(pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0) {
			// Deleting an unready pod does not disrupt the application:
			// the budget is not spent.
			return m.deleteEvicted(r, ns, name, withResourceVersion(opts, pod.ResourceVersion), dry)
		}
	}
	if err := m.checkAndDecrement(r, pod, pdb, dry); err != nil {
		return nil, false, err
	}
	return m.deleteEvicted(r, ns, name, opts, dry)
}

// budgetsOf returns the PodDisruptionBudgets of pod's namespace whose
// selector selects it.
func (m *Model) budgetsOf(r *Resource, pod *corev1.Pod) ([]*policyv1.PodDisruptionBudget, error) {
	if r.Lookup == nil {
		return nil, nil
	}
	pr, err := r.Lookup(pdbGVR)
	if apierrors.IsNotFound(err) {
		return nil, nil // the world has no budgets
	}
	if err != nil {
		return nil, err
	}
	list, err := pr.Store.List(pdbGVR, pr.GVK, pod.Namespace)
	if err != nil {
		return nil, err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	var out []*policyv1.PodDisruptionBudget
	for _, item := range items {
		pdb, ok := item.(*policyv1.PodDisruptionBudget)
		if !ok || pdb.Namespace != pod.Namespace {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue // an invalid selector selects no pod
		}
		out = append(out, pdb)
	}
	return out, nil
}

// checkAndDecrement is the eviction handler's: the budget must allow a
// disruption; it is spent (and the pod noted as disrupted) with an update
// of the budget's status, unless the request is a dry run.
func (m *Model) checkAndDecrement(r *Resource, pod *corev1.Pod, pdb *policyv1.PodDisruptionBudget, dry bool) error {
	if pdb.Status.ObservedGeneration < pdb.Generation {
		return tooManyRequests(pdb.Name)
	}
	forbidden := func(reason, why string) error {
		err := apierrors.NewForbidden(schema.GroupResource{Group: "policy", Resource: "poddisruptionbudget"}, pdb.Name, errors.New(reason))
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
			Type:    policyv1.DisruptionBudgetCause,
			Message: fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: %s", pdb.Name, why),
		})
		return err
	}
	switch {
	case pdb.Status.DisruptionsAllowed < 0:
		return forbidden("pdb disruptions allowed is negative", "pdb disruptions allowed is negative")
	case len(pdb.Status.DisruptedPods) > maxDisruptedPods:
		return forbidden("DisruptedPods map too big - too many evictions not confirmed by PDB controller", "too many pending evictions not confirmed by PDB controller")
	case pdb.Status.DisruptionsAllowed == 0:
		err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		cond := meta.FindStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition)
		var msg string
		switch {
		case cond != nil && cond.Status == metav1.ConditionFalse && cond.Message != "" && cond.Reason == policyv1.SyncFailedReason:
			msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently because it failed sync: %s", pdb.Name, cond.Message)
		case pdb.Status.CurrentHealthy <= pdb.Status.DesiredHealthy:
			msg = fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", pdb.Name, pdb.Status.DesiredHealthy, pdb.Status.CurrentHealthy)
		case cond != nil && cond.Status == metav1.ConditionFalse && cond.Message != "":
			msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently (%s): %s", pdb.Name, cond.Reason, cond.Message)
		default:
			msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", pdb.Name)
		}
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: msg})
		return err
	}
	if dry {
		return nil
	}
	spent := pdb.DeepCopy()
	spent.Status.DisruptionsAllowed--
	if spent.Status.DisruptionsAllowed == 0 {
		// pdbhelper.UpdateDisruptionAllowedCondition
		meta.SetStatusCondition(&spent.Status.Conditions, metav1.Condition{
			Type:               policyv1.DisruptionAllowedCondition,
			Reason:             policyv1.InsufficientPodsReason,
			Status:             metav1.ConditionFalse,
			ObservedGeneration: spent.Status.ObservedGeneration,
			LastTransitionTime: m.now(),
		})
	}
	if spent.Status.DisruptedPods == nil {
		spent.Status.DisruptedPods = map[string]metav1.Time{}
	}
	spent.Status.DisruptedPods[pod.Name] = m.now()
	pr, err := r.Lookup(pdbGVR)
	if err != nil {
		return err
	}
	// The eviction REST writes the budget's status through kube-apiserver's
	// loopback client: its field manager is the server's program name.
	if _, changed, err := m.update(pr, pdb.Namespace, "status", spent, write{manager: "kube-apiserver"}); err != nil {
		return err
	} else if changed && m.Written != nil {
		m.Written(pr, pdb.Namespace, pdb.Name)
	}
	return nil
}

// tooManyRequests is the eviction handler's createTooManyRequestsError.
func tooManyRequests(name string) error {
	err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 10)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    policyv1.DisruptionBudgetCause,
		Message: fmt.Sprintf("The disruption budget %s is still being processed by the server.", name),
	})
	return err
}

// deleteEvicted is the eviction handler's addConditionAndDeletePod: the
// pod gets the DisruptionTarget condition (a write of its status, checked
// against the delete's preconditions), then is deleted with opts.
func (m *Model) deleteEvicted(r *Resource, ns, name string, opts *metav1.DeleteOptions, dry bool) (runtime.Object, bool, error) {
	if !dry {
		obj, err := r.Store.Get(r.GVR, ns, name)
		if err != nil {
			return nil, false, err
		}
		latest := obj.(*corev1.Pod).DeepCopy()
		podGR := schema.GroupResource{Resource: "Pod"}
		if p := opts.Preconditions; p != nil {
			if uid := p.UID; uid != nil && *uid != "" && *uid != latest.UID {
				return nil, false, apierrors.NewConflict(podGR, name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *uid, latest.UID))
			}
			if rv := p.ResourceVersion; rv != nil && *rv != "" && *rv != latest.ResourceVersion {
				return nil, false, apierrors.NewConflict(podGR, name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *rv, latest.ResourceVersion))
			}
		}
		setPodCondition(&latest.Status, corev1.PodCondition{
			Type:    corev1.DisruptionTarget,
			Status:  corev1.ConditionTrue,
			Reason:  "EvictionByEvictionAPI",
			Message: "Eviction API: evicting",
		}, m.now())
		// Written through the pod store directly, not a request: no
		// field manager records it.
		updated, _, err := m.update(r, ns, "status", latest, write{managed: true})
		if err != nil {
			return nil, false, err
		}
		if opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil {
			um, _ := meta.Accessor(updated)
			opts = withResourceVersion(opts, um.GetResourceVersion())
		}
	}
	if _, _, err := m.delete(r, ns, name, *opts); err != nil {
		return nil, false, err
	}
	return &metav1.Status{Status: metav1.StatusSuccess}, !dry, nil
}

// setPodCondition is podutil.UpdatePodCondition.
func setPodCondition(status *corev1.PodStatus, c corev1.PodCondition, now metav1.Time) {
	c.LastTransitionTime = now
	for i := range status.Conditions {
		if status.Conditions[i].Type != c.Type {
			continue
		}
		if c.Status == status.Conditions[i].Status {
			c.LastTransitionTime = status.Conditions[i].LastTransitionTime
		}
		status.Conditions[i] = c
		return
	}
	status.Conditions = append(status.Conditions, c)
}

// withResourceVersion returns a copy of opts with the resourceVersion
// precondition rv.
func withResourceVersion(opts *metav1.DeleteOptions, rv string) *metav1.DeleteOptions {
	o := opts.DeepCopy()
	if o.Preconditions == nil {
		o.Preconditions = &metav1.Preconditions{}
	}
	o.Preconditions.ResourceVersion = &rv
	return o
}

// canIgnorePDB: a pod that is pending, finished or being deleted is
// evicted without looking at budgets.
func canIgnorePDB(pod *corev1.Pod) bool {
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed, corev1.PodPending:
		return true
	}
	return pod.DeletionTimestamp != nil
}

// shouldEnforceResourceVersion: a pod that is not finished nor being
// deleted is deleted only if it did not change since it was read.
func shouldEnforceResourceVersion(pod *corev1.Pod) bool {
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed || pod.DeletionTimestamp != nil {
		return false
	}
	return true
}

// isPodReady is podutil.IsPodReady: the Ready condition is True.
func isPodReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
