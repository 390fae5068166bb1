package companions

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
)

// The namespace controller (kube-controller-manager v1.37,
// pkg/controller/namespace/deletion): a namespace being deleted is marked
// Terminating, its pods are deleted, then the rest of its content; once
// nothing is left its status conditions say so and the kubernetes
// finalizer is removed from its spec (the finalize subresource), which
// lets the server remove it.

var (
	namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	podsGVR       = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

// conditionTypes are the conditions the namespace controller keeps, in
// its order, with the reason and message of each when all is well.
var conditionTypes = []struct {
	typ             corev1.NamespaceConditionType
	reason, message string
}{
	{corev1.NamespaceDeletionDiscoveryFailure, "ResourcesDiscovered", "All resources successfully discovered"},
	{corev1.NamespaceDeletionGVParsingFailure, "ParsedGroupVersions", "All legacy kube types successfully parsed"},
	{corev1.NamespaceDeletionContentFailure, "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	{corev1.NamespaceContentRemaining, "ContentRemoved", "All content successfully removed"},
	{corev1.NamespaceFinalizersRemaining, "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

func (e *Engine) namespaceSteps(v *view) []step {
	var out []step
	for _, o := range v.objs {
		if o.GVR != namespacesGVR {
			continue
		}
		ns, ok := o.Obj.(*corev1.Namespace)
		if !ok || ns.DeletionTimestamp == nil {
			continue
		}
		if s, ok := e.namespaceStep(v, o, ns); ok {
			out = append(out, s)
		}
	}
	return out
}

// namespaceStep is the namespace controller's sync of ns, being deleted.
func (e *Engine) namespaceStep(v *view, o Object, ns *corev1.Namespace) (step, bool) {
	if ns.Status.Phase != corev1.NamespaceTerminating {
		next := ns.DeepCopy()
		next.Status.Phase = corev1.NamespaceTerminating
		return step{
			what:    fmt.Sprintf("namespace controller: marked Namespace %s Terminating", ns.Name),
			actions: []clienttesting.Action{update(o, next, "status")},
		}, true
	}
	if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		return step{}, false // finalized: the server removes it when its other finalizers go
	}
	// Its content, by resource: pods first, then the others.
	content := map[schema.GroupVersionResource][]Object{}
	var gvrs []schema.GroupVersionResource
	for _, c := range v.objs {
		if !c.Namespaced || metaOf(c).GetNamespace() != ns.Name {
			continue
		}
		if _, seen := content[c.GVR]; !seen {
			gvrs = append(gvrs, c.GVR)
		}
		content[c.GVR] = append(content[c.GVR], c)
	}
	s := step{what: fmt.Sprintf("namespace controller: deleted the content of Namespace %s", ns.Name)}
	deleteAll := func(gvr schema.GroupVersionResource) {
		for _, c := range content[gvr] {
			if metaOf(c).GetDeletionTimestamp() == nil {
				background := metav1.DeletePropagationBackground
				s.actions = append(s.actions, clienttesting.NewDeleteCollectionActionWithOptions(gvr, ns.Name,
					metav1.DeleteOptions{PropagationPolicy: &background}, metav1.ListOptions{}))
				return
			}
		}
	}
	if len(content[podsGVR]) > 0 {
		deleteAll(podsGVR)
		if len(s.actions) == 0 {
			// Pods remain, being deleted: the controller waits for them,
			// and its conditions then count nothing (it writes them before
			// it counts the content).
			next, changed := e.withConditions(ns, nil)
			if !changed {
				return step{}, false
			}
			return step{
				what:    fmt.Sprintf("namespace controller: Namespace %s waits for its pods to go", ns.Name),
				actions: []clienttesting.Action{update(o, next, "status")},
			}, true
		}
		return s, true
	}
	for _, gvr := range gvrs {
		deleteAll(gvr)
	}
	if len(s.actions) > 0 {
		return s, true
	}
	if len(gvrs) > 0 { // what remains is being deleted
		return e.remaining(o, ns, content)
	}
	s = step{what: fmt.Sprintf("namespace controller: finalized Namespace %s, whose content is gone", ns.Name)}
	if next, changed := e.withConditions(ns, nil); changed {
		s.actions = append(s.actions, update(o, next, "status"))
		ns = next
	}
	final := ns.DeepCopy()
	final.Spec.Finalizers = slices.DeleteFunc(final.Spec.Finalizers, func(f corev1.FinalizerName) bool { return f == corev1.FinalizerKubernetes })
	s.actions = append(s.actions, update(o, final, "finalize"))
	return s, true
}

// remaining is the status update of a namespace whose content is being
// deleted and remains (finalizers, graceful deletion).
func (e *Engine) remaining(o Object, ns *corev1.Namespace, content map[schema.GroupVersionResource][]Object) (step, bool) {
	var resources, finalizers []string
	byFinalizer := map[string]int{}
	for gvr, objs := range content {
		resources = append(resources, fmt.Sprintf("%s.%s has %d resource instances", gvr.Resource, gvr.Group, len(objs)))
		for _, c := range objs {
			for _, f := range metaOf(c).GetFinalizers() {
				byFinalizer[f]++
			}
		}
	}
	for f, n := range byFinalizer {
		finalizers = append(finalizers, fmt.Sprintf("%s in %d resource instances", f, n))
	}
	sort.Strings(resources)
	sort.Strings(finalizers)
	failing := []corev1.NamespaceCondition{{
		Type: corev1.NamespaceContentRemaining, Status: corev1.ConditionTrue, Reason: "SomeResourcesRemain",
		Message: "Some resources are remaining: " + strings.Join(resources, ", "),
	}}
	if len(finalizers) > 0 {
		failing = append(failing, corev1.NamespaceCondition{
			Type: corev1.NamespaceFinalizersRemaining, Status: corev1.ConditionTrue, Reason: "SomeFinalizersRemain",
			Message: "Some content in the namespace has finalizers remaining: " + strings.Join(finalizers, ", "),
		})
	}
	next, changed := e.withConditions(ns, failing)
	if !changed {
		return step{}, false
	}
	return step{
		what:    fmt.Sprintf("namespace controller: Namespace %s waits for its content to go", ns.Name),
		actions: []clienttesting.Action{update(o, next, "status")},
	}, true
}

// withConditions is the namespace controller's conditions update: each of
// its conditions set to failing's of its type, or to the one that says
// all is well.
func (e *Engine) withConditions(ns *corev1.Namespace, failing []corev1.NamespaceCondition) (*corev1.Namespace, bool) {
	next := ns.DeepCopy()
	now := metav1.NewTime(e.now())
	changed := false
	for _, ct := range conditionTypes {
		want := corev1.NamespaceCondition{Type: ct.typ, Status: corev1.ConditionFalse, Reason: ct.reason, Message: ct.message}
		for _, f := range failing {
			if f.Type == ct.typ {
				want = f
			}
		}
		i := slices.IndexFunc(next.Status.Conditions, func(c corev1.NamespaceCondition) bool { return c.Type == ct.typ })
		if i < 0 {
			want.LastTransitionTime = now
			next.Status.Conditions = append(next.Status.Conditions, want)
			changed = true
			continue
		}
		c := &next.Status.Conditions[i]
		if c.Status != want.Status || c.Reason != want.Reason || c.Message != want.Message {
			if c.Status != want.Status {
				c.LastTransitionTime = now
			}
			c.Status, c.Reason, c.Message = want.Status, want.Reason, want.Message
			changed = true
		}
	}
	return next, changed
}

// SystemNamespaces are the namespaces every cluster has: Lifecycle takes
// them as Active when the world holds no Namespace object of theirs.
var SystemNamespaces = []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease}

// Lifecycle is kube-apiserver's namespace lifecycle admission for creates
// of namespaced resources: refused in a namespace that does not exist
// (the server's NotFound) or that is Terminating (Forbidden, with the
// NamespaceTerminating cause). namespace returns the namespace named
// name; false when there is none (one of SystemNamespaces is then taken
// as Active).
func Lifecycle(namespace func(name string) (*corev1.Namespace, bool)) func(gvr schema.GroupVersionResource, ns string, obj runtime.Object) error {
	return func(gvr schema.GroupVersionResource, ns string, obj runtime.Object) error {
		n, ok := namespace(ns)
		switch {
		case !ok && slices.Contains(SystemNamespaces, ns):
			return nil
		case !ok:
			return apierrors.NewNotFound(namespacesGVR.GroupResource(), ns)
		}
		if n.Status.Phase != corev1.NamespaceTerminating {
			return nil
		}
		name := "Unknown" // admission's extractResourceName
		if m, err := metaAccessor(obj); err == nil {
			switch {
			case m.GetName() != "":
				name = m.GetName()
			case m.GetGenerateName() != "":
				name = m.GetGenerateName()
			}
		}
		err := apierrors.NewForbidden(gvr.GroupResource(), name,
			fmt.Errorf("unable to create new content in namespace %s because it is being terminated", ns))
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
			Type:    corev1.NamespaceTerminatingCause,
			Message: fmt.Sprintf("namespace %s is being terminated", ns),
			Field:   "metadata.namespace",
		})
		return err
	}
}
