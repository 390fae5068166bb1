package kcm

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"k8s.io/kubernetes/pkg/controller"
	deploymentutil "k8s.io/kubernetes/pkg/controller/deployment/util"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
	"github.com/ctrltest/ctrltest/records"
)

// newDeployment is upstream's newDeployment (deployment_controller_test.go)
// with a fixed uid instead of a random one. Upstream's rows leave
// maxSurge and maxUnavailable at 0 and 0, which kube-apiserver refuses
// ("may not be 0 when maxSurge is 0", found by TestDeploymentParity):
// these rows give a surge of 1, which changes none of their syncs.
func newDeployment(name string, replicas int32, maxSurge, maxUnavailable int32, selector map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault, UID: types.UID(name + "-uid"), Annotations: map[string]string{}},
		Spec: appsv1.DeploymentSpec{
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxUnavailable: ptr.To(intstr.FromInt32(maxUnavailable)),
					MaxSurge:       ptr.To(intstr.FromInt32(maxSurge)),
				},
			},
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: selector},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "bar", Image: "foo/bar"}}},
			},
		},
	}
}

// newReplicaSet is upstream's newReplicaSet: a ReplicaSet controlled by d,
// with a fixed uid.
func newReplicaSet(d *appsv1.Deployment, name string, replicas int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			UID:             types.UID(name + "-uid"),
			Namespace:       metav1.NamespaceDefault,
			Labels:          d.Spec.Selector.MatchLabels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec: appsv1.ReplicaSetSpec{
			Selector: d.Spec.Selector.DeepCopy(),
			Replicas: ptr.To(replicas),
			Template: *d.Spec.Template.DeepCopy(),
		},
	}
}

var fooBar = map[string]string{"foo": "bar"}

// errConflict is the server's answer to a write with a stale
// resourceVersion.
var errConflict = fixture.ErrorContains("the object has been modified")

// deploymentTable is the Deployment controller's table: every default
// check, kube-apiserver's defaulting and validation on seeds and writes
// (kube.Server()).
func deploymentTable() fixture.Table[string] {
	return fixture.Table[string]{
		Wire:          Deployment,
		ActionOptions: []actions.Option{actions.Subset()},
		Rows:          onServer(deploymentRows(), deploymentRefused),
	}
}

// deploymentRefused are the rows whose seed kube-apiserver refuses (see
// onServer), with the finding.
var deploymentRefused = map[string]string{
	"does not sync a Deployment whose selector is empty": "spec.selector: Invalid value: {}: empty selector is invalid for deployment",
}

// rsName is the name the controller gives d's ReplicaSet: d's name and
// the hash of its pod template as the server defaults it.
func rsName(d *appsv1.Deployment) string {
	d = d.DeepCopy()
	kube.Default(d)
	return d.Name + "-" + controller.ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
}

// status returns a copy of d with status st, for a status write's
// expected object (compared as a subset: the fields set count).
func status(d *appsv1.Deployment, st appsv1.DeploymentStatus) *appsv1.Deployment {
	d = d.DeepCopy()
	d.Status = st
	return d
}

func deploymentRows() []fixture.Row {
	created := newDeployment("foo", 1, 1, 0, fooBar)
	createdRS := newReplicaSet(created, rsName(created), 1)
	createdRS.Annotations = map[string]string{deploymentutil.RevisionAnnotation: "1"}

	deleting := newDeployment("foo", 1, 1, 0, fooBar)
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	deleting.Finalizers = []string{"example.com/hold"}

	race := newDeployment("foo", 1, 1, 0, fooBar)
	raceDeleted := race.DeepCopy()
	raceDeleted.DeletionTimestamp = ptr.To(metav1.Now())
	orphan := newReplicaSet(race, "rs1", 1)
	orphan.OwnerReferences = nil

	emptySelector := newDeployment("foo", 1, 1, 0, fooBar)
	emptySelector.Spec.Selector = &metav1.LabelSelector{}

	rollback := newDeployment("foo", 1, 1, 0, fooBar)
	rollback.Annotations = map[string]string{deploymentutil.RevisionAnnotation: "2", appsv1.DeprecatedRollbackTo: "0"}
	rs1 := newReplicaSet(rollback, "deploymentrs-old", 0)
	rs1.Annotations = map[string]string{deploymentutil.RevisionAnnotation: "1"}
	rs1.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr.To[int64](1)
	rs1.Spec.Selector.MatchLabels = map[string]string{"foo": "bar", appsv1.DefaultDeploymentUniqueLabelKey: "hash"}
	rs1.Spec.Template.Labels = rs1.Spec.Selector.MatchLabels // as the server requires (upstream's has no hash label)
	rs2 := newReplicaSet(rollback, "deploymentrs-new", 1)
	rs2.Annotations = map[string]string{deploymentutil.RevisionAnnotation: "2"}
	rs2.Spec.Selector.MatchLabels = map[string]string{"foo": "bar", appsv1.DefaultDeploymentUniqueLabelKey: "hash"}
	rs2.Spec.Template.Labels = rs2.Spec.Selector.MatchLabels
	// A Deployment the controller has synced before: its Progressing
	// condition is there (upstream's seed has none, and no
	// progressDeadlineSeconds, which the server defaults: the sync would
	// first write the condition, and the rollback's update would then
	// conflict).
	rollback.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Conditions: []appsv1.DeploymentCondition{{
		Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: deploymentutil.NewRSAvailableReason,
	}}}
	rolledBack := rollback.DeepCopy()
	delete(rolledBack.Annotations, appsv1.DeprecatedRollbackTo)
	rolledBack.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr.To[int64](1) // rs1's template

	recreate := newDeployment("foo", 3, 1, 0, fooBar)
	recreate.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	old := newReplicaSet(recreate, "foo-0", 3)
	old.Spec.Template.Spec.Containers[0].Image = "foo/old"
	scaledDown := old.DeepCopy()
	scaledDown.Spec.Replicas = ptr.To[int32](0)

	return []fixture.Row{{
		// TestSyncDeploymentCreatesReplicaSet: a create of the ReplicaSet
		// and two status writes. Both status writes send the Deployment as
		// the lister gave it: the second has a stale resourceVersion, which
		// kube-apiserver refuses with a Conflict (upstream's fakes accept
		// it), so the sync fails and is retried.
		Name:    "creates the ReplicaSet of a new Deployment",
		Objects: []runtime.Object{created},
		Key:     "default/foo",
		WantActions: []actions.Action{
			actions.Create(createdRS),
			actions.UpdateStatus(status(created, appsv1.DeploymentStatus{})),
			actions.UpdateStatus(status(created, appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 0})),
		},
		WantEvents: []records.Event{fixture.NewEvent(created, corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled up replica set "+rsName(created)+" from 0 to 1")},
		WantErr:    errConflict,
	}, {
		// TestSyncDeploymentDontDoAnythingDuringDeletion: only the status.
		Name:        "only updates the status of a Deployment being deleted",
		Objects:     []runtime.Object{deleting},
		Key:         "default/foo",
		WantActions: []actions.Action{actions.UpdateStatus(status(deleting, appsv1.DeploymentStatus{ObservedGeneration: 1}))},
	}, {
		// TestSyncDeploymentDeletionRace: the cache says the Deployment
		// lives, the server says it is being deleted (a reactor answers the
		// get: a stale cache cannot be seeded); with an orphan to adopt,
		// the controller rechecks with a get and fails, adopting nothing.
		Name:    "rechecks a deletion the cache has not seen before adopting",
		Objects: []runtime.Object{race, orphan},
		Key:     "default/foo",
		Options: []fixture.Option{fixture.WithReactor("get", "deployments", func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, raceDeleted.DeepCopy(), nil
		})},
		WantReads: []actions.Action{actions.Get(race)},
		WantErr:   fixture.ErrorContains("deleted"),
	}, {
		// TestDontSyncDeploymentsWithEmptyPodSelector: no ReplicaSet, a
		// warning. Upstream expects no write because "the fake deployment
		// has no generation set"; the server sets generation 1, so the
		// controller writes observedGeneration, as on a cluster.
		Name:        "does not sync a Deployment whose selector is empty",
		Objects:     []runtime.Object{emptySelector},
		Key:         "default/foo",
		WantActions: []actions.Action{actions.UpdateStatus(status(emptySelector, appsv1.DeploymentStatus{ObservedGeneration: 1}))},
		WantEvents:  []records.Event{fixture.NewEvent(emptySelector, corev1.EventTypeWarning, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")},
		// The fault sweep (TestFaultSweep) finds that syncDeployment drops
		// the error of this status write (a best effort for a Deployment it
		// will not roll out): declared, as upstream's code does it.
		HandlesFault: func(w actions.Action, err error) bool {
			return w.Verb == "update" && w.Resource.Resource == "deployments" && w.Subresource == "status"
		},
	}, {
		// TestReentrantRollback: a rollback to revision 0 (the last one)
		// takes the revision-1 ReplicaSet's template and clears the
		// rollback annotation in one update; no ReplicaSet is written.
		Name:        "a rollback takes the old template and clears the annotation",
		Objects:     []runtime.Object{rollback, rs1, rs2},
		Key:         "default/foo",
		WantActions: []actions.Action{actions.Update(rolledBack)},
		WantEvents:  []records.Event{fixture.NewEvent(rollback, corev1.EventTypeNormal, "DeploymentRollback", `Rolled back deployment "foo" to revision 1`)},
	}, {
		// TestScaleDownOldReplicaSets: a Recreate Deployment scales its
		// old ReplicaSet down to 0 before anything else.
		Name:        "a Recreate rollout scales the old ReplicaSet down first",
		Objects:     []runtime.Object{recreate, old},
		Key:         "default/foo",
		WantActions: []actions.Action{actions.Update(scaledDown), actions.UpdateStatus(status(recreate, appsv1.DeploymentStatus{ObservedGeneration: 1}))},
		WantEvents:  []records.Event{fixture.NewEvent(recreate, corev1.EventTypeNormal, "ScalingReplicaSet", "Scaled down replica set foo-0 from 3 to 0")},
	}}
}

func TestDeployment(t *testing.T) {
	deploymentTable().Run(t)
}

// TestDeploymentCreatesSettles follows the row "creates the ReplicaSet of
// a new Deployment" past its Conflict, as the controller's worker would
// (the row's own settling check stops at the failed sync: issue 20 item
// 4): the retry writes the status, and the sync after it changes nothing.
// (fixture.Converge does not end here: every sync of a Deployment that is
// not complete re-adds its key after a delay, to check its progress
// deadline, and Converge syncs a key added after a delay as if it were due.)
func TestDeploymentCreatesSettles(t *testing.T) {
	d := newDeployment("foo", 1, 1, 0, fooBar)
	f := fixture.New(t, kube.Server(), fixture.WithObjects(d))
	sync := Deployment(f)
	first := fixture.Sync(f, sync, "default/foo")
	first.AssertErr(errConflict)
	f.Refresh()
	retry := fixture.Sync(f, sync, "default/foo")
	retry.AssertErr(nil)
	retry.AssertActions([]actions.Action{actions.UpdateStatus(status(d, appsv1.DeploymentStatus{ObservedGeneration: 1}))}, actions.Subset())
	if msg := fixture.CheckIdempotent(f, sync, "default/foo"); msg != "" {
		t.Error(msg)
	}
	rss := f.Objects(&appsv1.ReplicaSet{})
	if len(rss) != 1 || rss[0].(*appsv1.ReplicaSet).Name != rsName(d) || *rss[0].(*appsv1.ReplicaSet).Spec.Replicas != 1 {
		t.Errorf("the world holds ReplicaSets %v, want %s with 1 replica", rss, rsName(d))
	}
	got := f.Object(d).(*appsv1.Deployment)
	if got.Status.ObservedGeneration != 1 || got.Annotations[deploymentutil.RevisionAnnotation] != "1" ||
		deploymentutil.GetDeploymentCondition(got.Status, appsv1.DeploymentProgressing) == nil {
		t.Errorf("the Deployment's status is %+v, annotations %v; want observedGeneration 1, revision 1 and a Progressing condition", got.Status, got.Annotations)
	}
}
