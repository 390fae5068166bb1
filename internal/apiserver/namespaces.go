package apiserver

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrltest/ctrltest/internal/encoded"
)

// Namespaces as kube-apiserver's namespace registry keeps them
// (pkg/registry/core/namespace/storage, v1.37), when Model.Namespaces is
// set: a delete marks the namespace Terminating and keeps it while its
// spec.finalizers hold it; the finalize subresource writes those
// finalizers, and removes the namespace when none is left. Without
// Model.Namespaces a namespace is deleted as any other object is (nothing
// would ever finalize it).

var namespacesResource = schema.GroupResource{Resource: "namespaces"}

// isNamespaces reports whether r is core/v1 namespaces.
func isNamespaces(r *Resource) bool { return r.GVR.GroupResource() == namespacesResource }

// deleteNamespace is the namespace registry's Delete.
//
// handled is false when the store's delete goes on (a namespace being
// deleted that nothing holds).
func (m *Model) deleteNamespace(r *Resource, name string, opts metav1.DeleteOptions) (obj runtime.Object, changed, handled bool, err error) {
	stored, err := r.Store.Get(r.GVR, "", name)
	if err != nil {
		return nil, false, true, err
	}
	ns, ok := stored.(*corev1.Namespace)
	if !ok {
		return nil, false, false, nil
	}
	if p := opts.Preconditions; p != nil {
		if p.UID != nil && *p.UID != ns.UID {
			return nil, false, true, apierrors.NewConflict(namespacesResource, name,
				//lint:ignore ST1005 the namespace registry's message, word for word
				fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, ns.UID))
		}
		if p.ResourceVersion != nil && *p.ResourceVersion != ns.ResourceVersion {
			return nil, false, true, apierrors.NewConflict(namespacesResource, name,
				//lint:ignore ST1005 the namespace registry's message, word for word
				fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, ns.ResourceVersion))
		}
	}
	if ns.DeletionTimestamp.IsZero() {
		// The first delete: Terminating, and the garbage collector's
		// finalizers as the delete's options ask.
		ns = ns.DeepCopy()
		now := m.now()
		ns.DeletionTimestamp = &now
		ns.Status.Phase = corev1.NamespaceTerminating
		if changed, fs := gcFinalizers(r, ns, opts); changed {
			ns.Finalizers = fs
		}
		obj, changed, err := m.store(r, "", ns)
		return obj, changed, true, err
	}
	if len(ns.Spec.Finalizers) != 0 {
		return stored, false, true, nil
	}
	return nil, false, false, nil
}

// finalizeNamespace is the namespace registry's finalize subresource: an
// update of spec.finalizers only (the finalize strategy keeps the rest);
// a namespace being deleted whose finalizers are all gone is removed.
func (m *Model) finalizeNamespace(r *Resource, a clienttesting.UpdateActionImpl) (runtime.Object, bool, error) {
	sent, ok := a.GetObject().(*corev1.Namespace)
	if !ok {
		return nil, false, apierrors.NewBadRequest(fmt.Sprintf("namespaces/finalize takes a Namespace, not %T", a.GetObject()))
	}
	stored, err := r.Store.Get(r.GVR, "", sent.Name)
	if err != nil {
		return nil, false, err
	}
	old := stored.(*corev1.Namespace)
	if rv := sent.ResourceVersion; rv != "" && rv != old.ResourceVersion {
		return nil, false, apierrors.NewConflict(namespacesResource, sent.Name,
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	ns := old.DeepCopy()
	ns.Spec.Finalizers = append([]corev1.FinalizerName(nil), sent.Spec.Finalizers...)
	if encoded.Equal(ns, old) {
		return old, false, nil
	}
	if ns.DeletionTimestamp != nil && len(ns.Spec.Finalizers) == 0 && len(ns.Finalizers) == 0 {
		return m.remove(r, "", ns.Name, ns)
	}
	return m.store(r, "", ns)
}

// heldBySpec reports whether obj is a namespace whose spec.finalizers
// keep it although its metadata finalizers are gone (the namespace
// strategy's ShouldDeleteDuringUpdate).
func heldBySpec(r *Resource, obj runtime.Object) bool {
	ns, ok := obj.(*corev1.Namespace)
	return ok && isNamespaces(r) && len(ns.Spec.Finalizers) > 0
}

// seedNamespace gives a seed namespace that is not being deleted what
// the server gave it on its create (the namespace strategy's
// PrepareForCreate): phase Active, when it has no phase, and the
// kubernetes finalizer, without which the namespace controller would never
// finalize it once deleted. A namespace seeded as being deleted is kept as
// written.
func seedNamespace(obj runtime.Object) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok || ns.DeletionTimestamp != nil {
		return
	}
	if ns.Status.Phase == "" {
		ns.Status.Phase = corev1.NamespaceActive
	}
	for _, f := range ns.Spec.Finalizers {
		if f == corev1.FinalizerKubernetes {
			return
		}
	}
	ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
}
