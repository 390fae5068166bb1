package apiserver

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

func deploymentsResource() *Resource {
	gvr := appsv1.SchemeGroupVersion.WithResource("deployments")
	return &Resource{GVR: gvr, GVK: appsv1.SchemeGroupVersion.WithKind("Deployment"), Namespaced: true, Status: true,
		Store: clienttesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder()),
		New:   func() (runtime.Object, error) { return &appsv1.Deployment{}, nil }}
}

// The server's order: defaulting on the decoded request (before the
// strategy clears a create's status), validation of what the strategy
// prepared (after), defaulting again of what is stored (the server
// decodes it from storage, with its defaults, to answer and for every
// read), and only then the storage and the no-op check.
func TestAdmissionOrder(t *testing.T) {
	r := deploymentsResource()
	m := NewModel(time.Now, 0)
	type seen struct {
		step       string
		status     int32 // status.replicas
		generation int64
		kind       string
		hasOld     bool
	}
	var log []seen
	m.Admission = &Admission{
		Default: func(obj runtime.Object) error {
			d := obj.(*appsv1.Deployment)
			log = append(log, seen{step: "default", status: d.Status.Replicas, generation: d.Generation, kind: d.Kind})
			if d.Spec.Replicas == nil {
				d.Spec.Replicas = ptr.To[int32](1)
			}
			return nil
		},
		Validate: func(obj, old runtime.Object, sub string) field.ErrorList {
			d := obj.(*appsv1.Deployment)
			log = append(log, seen{step: "validate" + sub, status: d.Status.Replicas, generation: d.Generation, kind: d.Kind, hasOld: old != nil})
			if *d.Spec.Replicas > 10 {
				return field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), *d.Spec.Replicas, "must be at most 10")}
			}
			return nil
		},
	}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Status: appsv1.DeploymentStatus{Replicas: 7}}
	created, changed, err := m.Do(r, clienttesting.NewCreateAction(r.GVR, "ns", dep))
	if err != nil || !changed {
		t.Fatalf("create: %v (changed %v)", err, changed)
	}
	if got := created.(*appsv1.Deployment); *got.Spec.Replicas != 1 || got.Kind != "" {
		t.Errorf("created: replicas %d, kind %q; want the default, 1, and the kind as sent", *got.Spec.Replicas, got.Kind)
	}
	// An update that sends the defaulted object back is a no-op, validated.
	noop := created.DeepCopyObject().(*appsv1.Deployment)
	noop.Spec.Replicas = nil
	_, changed, err = m.Do(r, clienttesting.NewUpdateAction(r.GVR, "ns", noop))
	if err != nil || changed {
		t.Errorf("an update the defaults make a no-op: %v (changed %v)", err, changed)
	}
	big := created.DeepCopyObject().(*appsv1.Deployment)
	big.Spec.Replicas = ptr.To[int32](11)
	_, changed, err = m.Do(r, clienttesting.NewUpdateAction(r.GVR, "ns", big))
	if want := `Deployment.apps "web" is invalid: spec.replicas: Invalid value: 11: must be at most 10`; !apierrors.IsInvalid(err) || err.Error() != want || changed {
		t.Errorf("an invalid update: %v (changed %v); want %q", err, changed, want)
	}
	// A dry run is validated too, and stores nothing.
	_, _, err = m.Do(r, clienttesting.NewCreateActionWithOptions(r.GVR, "ns",
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "dry"}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](12)}},
		metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}))
	if !apierrors.IsInvalid(err) {
		t.Errorf("an invalid dry-run create: %v; want Invalid", err)
	}
	want := []seen{
		{step: "default", status: 7, kind: "Deployment"},      // the request, before PrepareForCreate
		{step: "validate", generation: 1, kind: "Deployment"}, // after it: status cleared, generation 1
		{step: "default", kind: "Deployment", generation: 1},  // what is stored, as the server reads it back
		{step: "default", kind: "Deployment", generation: 1},  // the no-op update's request
		{step: "validate", kind: "Deployment", generation: 1, hasOld: true},
		{step: "default", kind: "Deployment", generation: 1},                // what it would store
		{step: "default", kind: "Deployment", generation: 1},                // the invalid update
		{step: "validate", kind: "Deployment", generation: 2, hasOld: true}, // the strategy bumped it
		{step: "default", kind: "Deployment"},                               // the dry run
		{step: "validate", kind: "Deployment", generation: 1},
	}
	if len(log) != len(want) {
		t.Fatalf("calls %+v; want %+v", log, want)
	}
	for i := range want {
		if log[i] != want[i] {
			t.Errorf("call %d: %+v; want %+v", i, log[i], want[i])
		}
	}
	if _, err := r.Store.Get(r.GVR, "ns", "dry"); !apierrors.IsNotFound(err) {
		t.Errorf("the dry run stored its object: %v", err)
	}
}

// A defaulting error is an internal error, and nothing is stored; a seed
// is admitted as a create.
func TestAdmissionErrors(t *testing.T) {
	r := deploymentsResource()
	m := NewModel(time.Now, 0)
	m.Admission = &Admission{Default: func(runtime.Object) error { return errors.New("no defaults today") }}
	_, changed, err := m.Do(r, clienttesting.NewCreateAction(r.GVR, "ns", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}}))
	if !apierrors.IsInternalError(err) || changed {
		t.Errorf("create with a failing defaulter: %v (changed %v); want an internal error", err, changed)
	}
	if err := m.Admit(r, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}}); !apierrors.IsInternalError(err) {
		t.Errorf("Admit with a failing defaulter: %v; want an internal error", err)
	}
	if (&Model{}).Admits() || !m.Admits() {
		t.Errorf("Admits: wrong answer")
	}
}

// What a write stores is defaulted again after the strategy, as the server
// reads it back from storage: a default of the status survives the
// create's status reset (a PersistentVolumeClaim reads back Pending), and
// sending the object back is a no-op. Found by examples/kcm's parity run
// with kube.Server().
func TestStoredObjectIsDefaultedAgain(t *testing.T) {
	r := deploymentsResource()
	m := NewModel(time.Now, 0)
	m.Admission = &Admission{Default: func(obj runtime.Object) error {
		if d := obj.(*appsv1.Deployment); d.Status.ObservedGeneration == 0 {
			d.Status.ObservedGeneration = -1
		}
		return nil
	}}
	created, _, err := m.Do(r, clienttesting.NewCreateAction(r.GVR, "ns", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}}))
	if err != nil {
		t.Fatal(err)
	}
	if got := created.(*appsv1.Deployment).Status.ObservedGeneration; got != -1 {
		t.Errorf("the created object's defaulted status field: %d; want -1 (defaulted after the strategy's reset)", got)
	}
	if _, changed, err := m.Do(r, clienttesting.NewUpdateAction(r.GVR, "ns", created.DeepCopyObject())); err != nil || changed {
		t.Errorf("sending it back: changed %v, err %v; want a no-op", changed, err)
	}
}

// With the server's defaults, seeded Nodes, claims and volumes are held as
// the server holds created ones: the not-ready taint, the protection
// finalizers (TaintNodesByCondition, StorageObjectInUseProtection).
func TestAdmitSeedsAsCreated(t *testing.T) {
	m := NewModel(time.Now, 0)
	m.Admission = &Admission{Default: func(runtime.Object) error { return nil }}
	for _, tc := range []struct {
		obj   runtime.Object
		check func(obj runtime.Object) bool
	}{
		{&corev1.Node{}, func(o runtime.Object) bool {
			ts := o.(*corev1.Node).Spec.Taints
			return len(ts) == 1 && ts[0].Key == corev1.TaintNodeNotReady && ts[0].Effect == corev1.TaintEffectNoSchedule
		}},
		{&corev1.PersistentVolumeClaim{}, func(o runtime.Object) bool {
			return slices.Equal(o.(*corev1.PersistentVolumeClaim).Finalizers, []string{"kubernetes.io/pvc-protection"})
		}},
		{&corev1.PersistentVolume{}, func(o runtime.Object) bool {
			return slices.Equal(o.(*corev1.PersistentVolume).Finalizers, []string{"kubernetes.io/pv-protection"})
		}},
	} {
		gvks, _, _ := scheme.Scheme.ObjectKinds(tc.obj)
		r := &Resource{GVK: gvks[0]}
		if err := m.Admit(r, tc.obj); err != nil || !tc.check(tc.obj) {
			t.Errorf("seed %T admitted as %+v (err %v)", tc.obj, tc.obj, err)
		}
	}
}

// DoWarned: the warnings of an accepted write (a dry run's too, as the
// server sends them), none for a refused one, none left over for the
// next write.
func TestDoWarned(t *testing.T) {
	r := deploymentsResource()
	m := NewModel(time.Now, 0)
	m.Admission = &Admission{
		Validate: func(obj, _ runtime.Object, _ string) field.ErrorList {
			if obj.(*appsv1.Deployment).Name == "bad" {
				return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), "bad", "no")}
			}
			return nil
		},
		Warn: func(obj, old runtime.Object, sub string) []string {
			return []string{obj.(*appsv1.Deployment).Name + " " + sub + fmt.Sprint(old != nil)}
		},
	}
	for _, tc := range []struct {
		action clienttesting.Action
		want   []string
	}{
		{clienttesting.NewCreateAction(r.GVR, "ns", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}}), []string{"web false"}},
		{clienttesting.NewCreateAction(r.GVR, "ns", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "bad"}}), nil},
		{clienttesting.NewUpdateSubresourceAction(r.GVR, "status", "ns", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"}}), []string{"web statustrue"}},
		{clienttesting.NewCreateActionWithOptions(r.GVR, "ns", &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "dry"}},
			metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}), []string{"dry false"}},
	} {
		_, _, got, _ := m.DoWarned(r, tc.action)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %s: warnings %q; want %q", tc.action.GetVerb(), tc.action.GetSubresource(), got, tc.want)
		}
	}
}
