package checks

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

// The tables of the Correct controllers (the Exporter's excepted, see
// exporter_test.go): each controller's first test runs its table on
// client-go's fakes, and the parity module's tests run them on a real API
// server too. The Broken controllers' tests use the helpers here as well.

// deployment is the Deployment default/web, asking for replicas.
func deployment(replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": "web"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "web-uid"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.29"}}},
			},
		},
	}
}

// StatusWriter.

// now is the time of the fixtures' fake clock.
var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func statusWriter(v Variant) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		return NewStatusWriter(f.Kube(), f.KubeInformers().Apps().V1().Deployments(), f.Clock(), v).Sync
	}
}

// atGeneration is the Deployment at generation 2, whose status reports
// generation observed (0: none).
func atGeneration(observed int64) *appsv1.Deployment {
	d := deployment(1)
	d.Generation = 2
	if observed > 0 {
		d.Status.ObservedGeneration = observed
		d.Status.Conditions = []appsv1.DeploymentCondition{{
			Type: ConditionObserved, Status: corev1.ConditionTrue, Reason: "GenerationObserved", LastUpdateTime: metav1.NewTime(now),
		}}
	}
	return d
}

// StatusWriterTable is the Correct StatusWriter's scenarios (see
// TestStatusWriter).
func StatusWriterTable() fixture.Table[string] {
	return fixture.Table[string]{
		Wire:    statusWriter(Correct),
		Options: []fixture.Option{fixture.WithClock(testingclock.NewFakeClock(now))},
		Rows: []fixture.Row{{
			Name:        "reports a new generation",
			Objects:     []runtime.Object{atGeneration(0)},
			Key:         "default/web",
			WantActions: []actions.Action{actions.UpdateStatus(atGeneration(2))},
		}, {
			Name:    "leaves a current status alone",
			Objects: []runtime.Object{atGeneration(2)},
			Key:     "default/web",
		}},
	}
}

// Labeler.

func labeler(v Variant) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		return NewLabeler(f.Kube(), f.KubeInformers().Apps().V1().Deployments(), v).Sync
	}
}

func labelled() *appsv1.Deployment {
	d := deployment(1)
	d.Labels = map[string]string{ManagedLabel: "true"}
	return d
}

// labelsRow is the scenario both variants are swept over.
var labelsRow = fixture.Row{
	Name:        "labels a Deployment",
	Objects:     []runtime.Object{deployment(1)},
	Key:         "default/web",
	WantActions: []actions.Action{actions.Update(labelled())},
	// Not-found on the update means the Deployment was deleted during the
	// sync: nothing is left to label, so returning nil is right.
	HandlesFault: func(_ actions.Action, err error) bool { return apierrors.IsNotFound(err) },
}

// LabelerTable is the Correct Labeler's scenarios, with the fault sweep on
// (see TestLabeler).
func LabelerTable() fixture.Table[string] {
	return fixture.Table[string]{
		Wire:   labeler(Correct),
		Checks: fixture.Checks{FaultSweep: fixture.On},
		Rows: []fixture.Row{labelsRow, {
			Name:    "leaves a labelled Deployment alone",
			Objects: []runtime.Object{labelled()},
			Key:     "default/web",
		}},
	}
}

// ReplicaFloor.

func replicaFloor(v Variant) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		return NewReplicaFloor(f.Kube(), f.KubeInformers().Apps().V1().Deployments(), v).Sync
	}
}

// ReplicaFloorTable is the Correct ReplicaFloor's scenarios (see
// TestReplicaFloor).
func ReplicaFloorTable() fixture.Table[string] {
	return fixture.Table[string]{
		Wire: replicaFloor(Correct),
		Rows: []fixture.Row{{
			Name:        "scales up a Deployment below the floor",
			Objects:     []runtime.Object{deployment(1)},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Update(deployment(MinReplicas))},
		}, {
			Name:    "leaves a Deployment at the floor alone",
			Objects: []runtime.Object{deployment(MinReplicas)},
			Key:     "default/web",
		}},
	}
}

// ReplicaSetOwner.

// newReplicaSetOwner builds the controller from the fixture's pieces; in
// informer mode, its event handlers then run.
func newReplicaSetOwner(f *fixture.Fixture, v Variant) *ReplicaSetOwner {
	apps := f.KubeInformers().Apps().V1()
	c, err := NewReplicaSetOwner(f.Kube(), apps.Deployments(), apps.ReplicaSets(), fixture.Queue[string](f), v)
	if err != nil {
		f.T().Fatal(err)
	}
	return c
}

// replicaSet is the ReplicaSet default/name, controlled by the Deployment
// owner (by nothing when owner is nil), with ready replicas, all of them
// ready. It has what a real API server requires of a ReplicaSet: a
// selector and a pod template it selects (the owner's, if any), and no
// more ready replicas than replicas.
func replicaSet(owner *appsv1.Deployment, name string, ready int32) *appsv1.ReplicaSet {
	d := owner
	if d == nil {
		d = deployment(1)
		d.Spec.Selector.MatchLabels = map[string]string{"app": name}
		d.Spec.Template.Labels = map[string]string{"app": name}
	}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec:       appsv1.ReplicaSetSpec{Replicas: ptr.To(ready), Selector: d.Spec.Selector.DeepCopy(), Template: *d.Spec.Template.DeepCopy()},
		Status:     appsv1.ReplicaSetStatus{Replicas: ready, ReadyReplicas: ready},
	}
	if owner != nil {
		rs.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(owner, appsv1.SchemeGroupVersion.WithKind("Deployment"))}
	}
	return rs
}

// ReplicaSetOwnerTable is the Correct ReplicaSetOwner's sync scenarios (see
// TestReplicaSetOwnerSync).
func ReplicaSetOwnerTable() fixture.Table[string] {
	// The Deployment's status counts the replicas of its ReplicaSets, as
	// the Deployment controller keeps it: a server refuses more ready
	// replicas than replicas.
	d := deployment(1)
	d.Status.Replicas = 3
	ready := d.DeepCopy()
	ready.Status.ReadyReplicas = 3
	return fixture.Table[string]{
		Wire: func(f *fixture.Fixture) fixture.SyncFunc[string] { return newReplicaSetOwner(f, Correct).Sync },
		Rows: []fixture.Row{{
			Name: "sums the ready replicas of the ReplicaSets it controls",
			Objects: []runtime.Object{d,
				replicaSet(d, "web-1", 1), replicaSet(d, "web-2", 2), replicaSet(nil, "orphan", 5)},
			Key:         "default/web",
			WantActions: []actions.Action{actions.UpdateStatus(ready)},
		}},
	}
}

// Adopter.

func adopter(v Variant) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		return NewAdopter(f.Kube(), f.KubeInformers().Apps().V1().Deployments(), v).Sync
	}
}

// adopted is the Deployment with the Adopter's label, and with its
// condition when withCondition.
func adopted(withCondition bool) *appsv1.Deployment {
	d := deployment(1)
	d.Labels = map[string]string{AdoptedLabel: "true"}
	if withCondition {
		d.Status.Conditions = []appsv1.DeploymentCondition{{Type: ConditionAdopted, Status: corev1.ConditionTrue, Reason: "Adopted"}}
	}
	return d
}

// AdopterTable is the Correct Adopter's scenarios (see TestAdopter).
func AdopterTable() fixture.Table[string] {
	return fixture.Table[string]{
		Wire: adopter(Correct),
		Rows: []fixture.Row{{
			Name:        "adopts a Deployment",
			Objects:     []runtime.Object{deployment(1)},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Update(adopted(false)), actions.UpdateStatus(adopted(true))},
		}, {
			Name:    "leaves an adopted Deployment alone",
			Objects: []runtime.Object{adopted(true)},
			Key:     "default/web",
		}},
	}
}
