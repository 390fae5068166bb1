package companions

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
)

// The garbage collector (kube-controller-manager v1.37,
// pkg/controller/garbagecollector): an object whose owners are all gone is
// deleted; an owner deleted in the foreground (the foregroundDeletion
// finalizer) loses its finalizer when no dependent that blocks its
// deletion is left; an owner deleted with the orphan finalizer has its
// dependents' references to it removed, then the finalizer.

// collector plans the garbage collector's steps of one round.
type collector struct {
	v        *view
	store    Store
	findings []Finding
}

func (gc *collector) steps() []step {
	var out []step
	for _, o := range gc.v.objs {
		m := metaOf(o)
		if m.GetDeletionTimestamp() != nil {
			switch {
			case has(m, metav1.FinalizerOrphanDependents):
				out = append(out, gc.orphan(o)...)
			case has(m, metav1.FinalizerDeleteDependents):
				out = append(out, gc.deletingDependents(o)...)
			}
			continue // being deleted: its dependents are handled once it is gone
		}
		if len(m.GetOwnerReferences()) > 0 {
			out = append(out, gc.attemptToDelete(o)...)
		}
	}
	return out
}

func has(m metav1.Object, finalizer string) bool {
	return slices.Contains(m.GetFinalizers(), finalizer)
}

// deletingDependents is deletingDependents for o, true when o is being
// deleted in the foreground.
func deletingDependents(o Object) bool {
	m := metaOf(o)
	return m.GetDeletionTimestamp() != nil && has(m, metav1.FinalizerDeleteDependents)
}

// dependents returns the objects whose owner references name o by uid,
// with the reference, where the reference is valid: a namespaced owner's
// dependents are in its namespace (the graph builder keeps others out of
// the owner's dependents, see classify).
func (gc *collector) dependents(o Object) []dependent {
	uid := metaOf(o).GetUID()
	var out []dependent
	for _, d := range gc.v.objs {
		dm := metaOf(d)
		for _, ref := range dm.GetOwnerReferences() {
			if ref.UID != uid {
				continue
			}
			if o.Namespaced && dm.GetNamespace() != metaOf(o).GetNamespace() {
				continue
			}
			out = append(out, dependent{d, ref})
		}
	}
	return out
}

type dependent struct {
	Object
	ref metav1.OwnerReference
}

// orphan is attemptToOrphanWorker: every dependent's references to o
// removed, then o's orphan finalizer.
func (gc *collector) orphan(o Object) []step {
	s := step{what: fmt.Sprintf("garbage collector: orphaned the dependents of %s", describe(o))}
	uid := metaOf(o).GetUID()
	for _, d := range gc.dependents(o) {
		s.actions = append(s.actions, withoutRefs(d.Object, []types.UID{uid}))
	}
	s.actions = append(s.actions, withoutFinalizer(o, metav1.FinalizerOrphanDependents))
	return []step{s}
}

// deletingDependents is processDeletingDependentsItem: o's foreground
// finalizer goes when no dependent that blocks its deletion is left (the
// dependents themselves are deleted as attemptToDelete finds their owner
// waiting for them).
func (gc *collector) deletingDependents(o Object) []step {
	for _, d := range gc.dependents(o) {
		if d.ref.BlockOwnerDeletion != nil && *d.ref.BlockOwnerDeletion {
			return nil
		}
	}
	return []step{{
		what:    fmt.Sprintf("garbage collector: removed the foregroundDeletion finalizer of %s, whose blocking dependents are gone", describe(o)),
		actions: []clienttesting.Action{withoutFinalizer(o, metav1.FinalizerDeleteDependents)},
	}}
}

// references are an object's owner references as attemptToDeleteItem
// classifies them.
type references struct {
	solid, dangling, waiting []metav1.OwnerReference
}

// attemptToDelete is attemptToDeleteItem for o, not being deleted, with
// owner references.
func (gc *collector) attemptToDelete(o Object) []step {
	m := metaOf(o)
	refs, ok := gc.classify(o)
	if !ok {
		return nil // kept, as a cluster keeps it (see classify)
	}
	switch {
	case len(refs.solid) > 0:
		if len(refs.dangling) == 0 && len(refs.waiting) == 0 {
			return nil
		}
		var uids []types.UID
		for _, r := range append(append([]metav1.OwnerReference(nil), refs.dangling...), refs.waiting...) {
			uids = append(uids, r.UID)
		}
		return []step{{
			what:    fmt.Sprintf("garbage collector: removed from %s its references to owners that are gone or being deleted (%s)", describe(o), refNames(append(refs.dangling, refs.waiting...))),
			actions: []clienttesting.Action{withoutRefs(o, uids)},
		}}
	case len(refs.waiting) > 0 && len(gc.dependents(o)) > 0:
		s := step{what: fmt.Sprintf("garbage collector: deleted %s in the foreground: an owner waits for its dependents, and it has dependents", describe(o))}
		for _, d := range gc.dependents(o) {
			if deletingDependents(d.Object) {
				// A possible cycle: its references stop blocking.
				s.actions = append(s.actions, unblocked(o))
				break
			}
		}
		s.actions = append(s.actions, deleteWith(o, metav1.DeletePropagationForeground))
		return []step{s}
	default:
		policy := metav1.DeletePropagationBackground
		switch {
		case has(m, metav1.FinalizerOrphanDependents):
			policy = metav1.DeletePropagationOrphan
		case has(m, metav1.FinalizerDeleteDependents):
			policy = metav1.DeletePropagationForeground
		}
		why := "its owners are gone"
		if len(refs.waiting) > 0 {
			why = "its owner waits for its dependents to go"
		}
		return []step{{
			what:    fmt.Sprintf("garbage collector: deleted %s (%s; %s propagation)", describe(o), why, policy),
			actions: []clienttesting.Action{deleteWith(o, policy)},
		}}
	}
}

// classify is classifyReferences and isDangling: a reference whose owner
// is absent, or has another uid, is dangling; one whose owner is being
// deleted in the foreground is waiting; the others are solid. ok is false
// when the garbage collector cannot decide and keeps o: a reference to a
// kind no registration serves (a cluster's retries until discovery
// serves it), or a cluster-scoped object's reference to a namespaced owner
// (an error a cluster's never retries).
func (gc *collector) classify(o Object) (refs references, ok bool) {
	m := metaOf(o)
	for _, ref := range m.GetOwnerReferences() {
		r, served := gc.store.ResourceOf(ref.APIVersion, ref.Kind)
		if !served {
			gc.findings = append(gc.findings, Finding{Bad: true, Text: fmt.Sprintf(
				"the garbage collector cannot resolve the owner reference of %s to %s %q (apiVersion %s): no registered clientset serves that kind; a cluster's garbage collector retries until it is served and keeps %s meanwhile. Register the owner's types (fixture.WithTypes, fixture.WithClientset) or fix the reference",
				describe(o), ref.Kind, ref.Name, ref.APIVersion, describe(o))})
			return refs, false
		}
		if r.Namespaced && m.GetNamespace() == "" {
			gc.findings = append(gc.findings, Finding{Text: fmt.Sprintf(
				"garbage collector: %s is cluster-scoped and refers to the namespaced owner %s %q: a cluster's garbage collector never resolves such a reference and keeps the object (Warning OwnerRefInvalidNamespace: %s)",
				describe(o), ref.Kind, ref.Name, invalidNamespaceMessage(ref, ""))})
			return refs, false
		}
		ns := ""
		if r.Namespaced {
			ns = m.GetNamespace()
		}
		owner, found := gc.v.byKey[objectKey{r.GVR, ns, ref.Name}]
		if !found || metaOf(owner).GetUID() != ref.UID {
			if r.Namespaced {
				gc.noteOtherNamespace(o, ref)
			}
			refs.dangling = append(refs.dangling, ref)
			continue
		}
		if deletingDependents(owner) {
			refs.waiting = append(refs.waiting, ref)
		} else {
			refs.solid = append(refs.solid, ref)
		}
	}
	return refs, true
}

// noteOtherNamespace reports a reference of o to an owner that lives in
// another namespace (the uid is of an object there): the graph builder's
// OwnerRefInvalidNamespace event. The reference is dangling all the same:
// a namespaced owner is looked up in its dependent's namespace.
func (gc *collector) noteOtherNamespace(o Object, ref metav1.OwnerReference) {
	if ref.UID == "" {
		return
	}
	ns := metaOf(o).GetNamespace()
	for _, other := range gc.v.byUID[ref.UID] {
		if om := metaOf(other); om.GetNamespace() != ns && om.GetName() == ref.Name && other.GVK.Kind == ref.Kind {
			gc.findings = append(gc.findings, Finding{Text: fmt.Sprintf(
				"garbage collector: %s refers to the owner %s, which is in namespace %q: owners are looked up in their dependent's namespace, so the reference is dangling (Warning OwnerRefInvalidNamespace: %s)",
				describe(o), describe(other), om.GetNamespace(), invalidNamespaceMessage(ref, ns))})
			return
		}
	}
}

// invalidNamespaceMessage is the message of the graph builder's
// OwnerRefInvalidNamespace event.
func invalidNamespaceMessage(ref metav1.OwnerReference, namespace string) string {
	return fmt.Sprintf("ownerRef [%s/%s, namespace: %s, name: %s, uid: %s] does not exist in namespace %q",
		ref.APIVersion, ref.Kind, namespace, ref.Name, ref.UID, namespace)
}

func refNames(refs []metav1.OwnerReference) string {
	s := ""
	for i, r := range refs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %s", r.Kind, r.Name)
	}
	return s
}

// withoutRefs is the update of o without its owner references to uids.
func withoutRefs(o Object, uids []types.UID) clienttesting.Action {
	obj := o.Obj.DeepCopyObject()
	m := metaOf(Object{o.Resource, obj})
	var keep []metav1.OwnerReference
	for _, r := range m.GetOwnerReferences() {
		if !slices.Contains(uids, r.UID) {
			keep = append(keep, r)
		}
	}
	m.SetOwnerReferences(keep)
	return update(o, obj, "")
}

// unblocked is the update of o with none of its owner references blocking
// their owner's deletion.
func unblocked(o Object) clienttesting.Action {
	obj := o.Obj.DeepCopyObject()
	m := metaOf(Object{o.Resource, obj})
	refs := m.GetOwnerReferences()
	for i := range refs {
		if refs[i].BlockOwnerDeletion != nil && *refs[i].BlockOwnerDeletion {
			f := false
			refs[i].BlockOwnerDeletion = &f
		}
	}
	m.SetOwnerReferences(refs)
	return update(o, obj, "")
}

// withoutFinalizer is the update of o without finalizer.
func withoutFinalizer(o Object, finalizer string) clienttesting.Action {
	obj := o.Obj.DeepCopyObject()
	m := metaOf(Object{o.Resource, obj})
	m.SetFinalizers(slices.DeleteFunc(slices.Clone(m.GetFinalizers()), func(f string) bool { return f == finalizer }))
	return update(o, obj, "")
}

// deleteWith is the garbage collector's delete of o: conditional on its
// uid, with policy.
func deleteWith(o Object, policy metav1.DeletionPropagation) clienttesting.Action {
	m := metaOf(o)
	uid := m.GetUID()
	return clienttesting.NewDeleteActionWithOptions(o.GVR, m.GetNamespace(), m.GetName(), metav1.DeleteOptions{
		Preconditions:     &metav1.Preconditions{UID: &uid},
		PropagationPolicy: &policy,
	})
}
