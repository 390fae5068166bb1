package owner

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

// wire builds the controller on a row's fixture, from its clientset and
// informers.
func wire(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
	apps := f.KubeInformers().Apps().V1()
	return New(f.Kube(), apps.Deployments(), apps.ReplicaSets()).Sync
}

// deployment returns the Deployment "web" asking for replicas, whose status
// reports statusReplicas.
func deployment(replicas, statusReplicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": "web"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "web-uid"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
		Status: appsv1.DeploymentStatus{Replicas: statusReplicas},
	}
}

// replicaSet returns a ReplicaSet controlled by d, asking for replicas,
// whose status reports statusReplicas: what the controller should create
// for d, or what it finds.
func replicaSet(d *appsv1.Deployment, name string, replicas, statusReplicas int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       d.Namespace,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(replicas),
			Selector: d.Spec.Selector.DeepCopy(),
			Template: *d.Spec.Template.DeepCopy(),
		},
		Status: appsv1.ReplicaSetStatus{Replicas: statusReplicas},
	}
}

// createdAt sets when rs was created; the controller keeps the oldest.
func createdAt(rs *appsv1.ReplicaSet, minute int) *appsv1.ReplicaSet {
	rs.CreationTimestamp = metav1.NewTime(time.Date(2025, 1, 1, 0, minute, 0, 0, time.UTC))
	return rs
}

// Table is the controller's scenarios: TestSync runs them on client-go's
// fakes, and the parity module's tests run them on a real API server too.
func Table() fixture.Table[cache.ObjectName] {
	web := deployment(3, 3)
	other := deployment(1, 1)
	other.Name, other.UID = "other", "other-uid"

	return fixture.Table[cache.ObjectName]{
		Wire: wire,
		Rows: []fixture.Row{{
			Name:        "creates the ReplicaSet of a new Deployment",
			Objects:     []runtime.Object{deployment(3, 0)},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Create(replicaSet(web, "web-rs", 3, 0))},
		}, {
			Name:        "leaves a Deployment in line alone",
			Objects:     []runtime.Object{web, replicaSet(web, "web-rs", 3, 3)},
			Key:         "default/web",
			WantActions: nil,
		}, {
			Name:        "scales a ReplicaSet with the wrong replicas",
			Objects:     []runtime.Object{web, replicaSet(web, "web-rs", 1, 3)},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Update(replicaSet(web, "web-rs", 3, 3))},
		}, {
			Name: "deletes the ReplicaSets beyond the oldest",
			Objects: []runtime.Object{
				web,
				// The oldest sorts last by name, so that the controller
				// must go by age. It is listed last too: a real API
				// server stamps creation times itself, as it creates the
				// seeds in order, so there it is never the oldest (see
				// the parity module's TestOwnerParity).
				createdAt(replicaSet(web, "web-1", 3, 0), 1),
				createdAt(replicaSet(web, "web-2", 3, 0), 2),
				createdAt(replicaSet(web, "web-rs", 3, 3), 0),
				// Controlled by another Deployment: not web's to delete.
				replicaSet(other, "other-rs", 1, 1),
			},
			Key: "default/web",
			WantActions: []actions.Action{
				actions.Delete(replicaSet(web, "web-2", 3, 0)),
				actions.Delete(replicaSet(web, "web-1", 3, 0)),
			},
			// In which order the extras go does not matter.
			ActionOptions: []actions.Option{actions.Unordered()},
		}, {
			Name:        "reports the ReplicaSet's replicas in the Deployment's status",
			Objects:     []runtime.Object{deployment(3, 1), replicaSet(web, "web-rs", 3, 3)},
			Key:         "default/web",
			WantActions: []actions.Action{actions.UpdateStatus(deployment(3, 3))},
		}, {
			Name:    "recreates a lost ReplicaSet, then resets the status",
			Objects: []runtime.Object{web},
			Key:     "default/web",
			WantActions: []actions.Action{
				actions.Create(replicaSet(web, "web-rs", 3, 0)),
				actions.UpdateStatus(deployment(3, 0)),
			},
		}, {
			Name:    "does nothing for a deleted Deployment",
			Objects: []runtime.Object{fixture.Absent(deployment(3, 0))},
			Key:     "default/web",
		}},
	}
}
