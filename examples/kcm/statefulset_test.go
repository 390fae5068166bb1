package kcm

import (
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
	"github.com/ctrltest/ctrltest/records"
)

// newStatefulSet is upstream's newStatefulSet (stateful_set_utils_test.go):
// "foo", a claim template "datadir", a host-path volume, OrderedReady.
func newStatefulSet(replicas int32) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "foo", Namespace: metav1.NamespaceDefault, UID: "test"},
		Spec: appsv1.StatefulSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: fooBar},
			Replicas: ptr.To(replicas),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: fooBar},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "nginx", Image: "nginx", VolumeMounts: []corev1.VolumeMount{
						{Name: "datadir", MountPath: "/tmp/zookeeper"}, {Name: "home", MountPath: "/home"},
					}}},
					Volumes: []corev1.Volume{{Name: "home", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/home"}}}},
				},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
				ObjectMeta: metav1.ObjectMeta{Name: "datadir"},
				Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: *resource.NewQuantity(1, resource.BinarySI)}},
				},
			}},
			ServiceName:          "governingsvc",
			UpdateStrategy:       appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType},
			RevisionHistoryLimit: ptr.To[int32](2),
			PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
				WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
			},
		},
	}
}

// statefulSetPod is pod ordinal of set as the controller makes it
// (upstream's newStatefulSetPod): named and labelled for its ordinal and
// the revision statefulSetRevision, owned by set, with the volume of its
// claim; running and ready when ready is true.
func statefulSetPod(set *appsv1.StatefulSet, ordinal int, ready bool) *corev1.Pod {
	name := fmt.Sprintf("%s-%d", set.Name, ordinal)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: set.Namespace,
			Labels: map[string]string{"foo": "bar", appsv1.StatefulSetPodNameLabel: name, appsv1.PodIndexLabel: fmt.Sprint(ordinal),
				appsv1.ControllerRevisionHashLabelKey: statefulSetRevision},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, appsv1.SchemeGroupVersion.WithKind("StatefulSet"))},
		},
		Spec: *set.Spec.Template.Spec.DeepCopy(),
	}
	pod.Spec.Volumes = append([]corev1.Volume{{Name: "datadir", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "datadir-" + name}}}}, pod.Spec.Volumes...)
	if ready {
		pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	}
	return pod
}

// claim is the claim of pod ordinal of set.
func claim(set *appsv1.StatefulSet, ordinal int) *corev1.PersistentVolumeClaim {
	c := set.Spec.VolumeClaimTemplates[0].DeepCopy()
	c.Namespace, c.Name = set.Namespace, fmt.Sprintf("datadir-%s-%d", set.Name, ordinal)
	c.Labels = fooBar
	return c
}

// statefulSetRevision is the name of the ControllerRevision the
// controller makes for newStatefulSet's template as the server defaults it
// (the set's name and the hash of the revision's data).
const statefulSetRevision = "foo-676bc6bc4c"

// statefulSetTable is the StatefulSet controller's table (see doc.go: its
// consistency store needs each informer's last-synced resourceVersion as
// client-go's reflector records it, which the default mode keeps).
func statefulSetTable() fixture.Table[string] {
	return fixture.Table[string]{
		Wire:          StatefulSet,
		Options:       []fixture.Option{kube.Server(), fixture.WithClock(fixedClock())},
		ActionOptions: []actions.Option{actions.Subset()},
		Rows:          append(statefulSetRows(), newestSortingFirstRow()),
	}
}

// created are the writes that create pod ordinal of set: its claim, then
// the pod, labelled with the revision.
func created(set *appsv1.StatefulSet, ordinal int) []actions.Action {
	pod := statefulSetPod(set, ordinal, false)
	pod.Spec = corev1.PodSpec{} // the template's, with the claim's volume: not compared
	c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: set.Namespace, Name: fmt.Sprintf("datadir-%s", pod.Name)}}
	return []actions.Action{actions.Create(c), actions.Create(pod)}
}

// createdEvents are the events of created.
func createdEvents(set *appsv1.StatefulSet, ordinal int) []records.Event {
	return []records.Event{
		fixture.NewEvent(set, corev1.EventTypeNormal, "SuccessfulCreate", fmt.Sprintf("Create Claim datadir-foo-%d Pod foo-%d in StatefulSet foo success", ordinal, ordinal)),
		fixture.NewEvent(set, corev1.EventTypeNormal, "SuccessfulCreate", fmt.Sprintf("Create Pod foo-%d in StatefulSet foo successful", ordinal)),
	}
}

// setStatus is set with status st, for a status write (a subset).
func setStatus(set *appsv1.StatefulSet, st appsv1.StatefulSetStatus) *appsv1.StatefulSet {
	set = set.DeepCopy()
	st.ObservedGeneration = 1
	st.CurrentRevision, st.UpdateRevision = statefulSetRevision, statefulSetRevision
	set.Status = st
	return set
}

// revision is the create of the set's first ControllerRevision (the
// controller sends it without a namespace; the request has one).
var revision = func() actions.Action {
	a := actions.Create(&appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: statefulSetRevision}, Revision: 1})
	a.Namespace = "default"
	return a
}()

func cat[T any](lists ...[]T) []T {
	var out []T
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func statefulSetRows() []fixture.Row {
	creates := newStatefulSet(3)

	parallel := newStatefulSet(2)
	parallel.Spec.PodManagementPolicy = appsv1.ParallelPodManagement

	deletes := newStatefulSet(0)

	deleting := newStatefulSet(3)
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	deleting.Finalizers = []string{"example.com/hold"}

	race := newStatefulSet(3)
	raceDeleted := race.DeepCopy()
	raceDeleted.DeletionTimestamp = ptr.To(metav1.Now())
	raceOrphan := statefulSetPod(race, 1, true)
	raceOrphan.OwnerReferences = nil

	adopt := newStatefulSet(3)
	orphan := statefulSetPod(adopt, 2, true)
	orphan.OwnerReferences = nil
	wrongLabels := statefulSetPod(adopt, 3, true)
	wrongLabels.OwnerReferences, wrongLabels.Labels = nil, nil
	wrongName := statefulSetPod(adopt, 4, true)
	wrongName.OwnerReferences, wrongName.Name = nil, "x"+wrongName.Name

	return []fixture.Row{{
		// TestStatefulSetControllerCreates, first step: OrderedReady
		// creates the revision, then pod 0 and its claim, and waits for it
		// to be ready (nothing makes it ready here: there is no kubelet).
		Name:    "creates the first pod and its claim",
		Objects: []runtime.Object{creates},
		Key:     "default/foo",
		// The status counts the pods the sync listed (none were created yet).
		WantActions: cat([]actions.Action{revision}, created(creates, 0), []actions.Action{actions.UpdateStatus(setStatus(creates, appsv1.StatefulSetStatus{}))}),
		WantEvents:  createdEvents(creates, 0),
	}, {
		// TestStatefulSetControllerCreates under the Parallel policy
		// (TestParallelScale in stateful_set_control_test.go): every pod
		// in one sync, without waiting for the first to be ready. Two
		// replicas: the controller's slow-start batches (1, then 2) create
		// a third and fourth pod from two goroutines, in an order that
		// varies, and a row's events are ordered.
		Name:    "creates every pod at once under the Parallel policy",
		Objects: []runtime.Object{parallel},
		Key:     "default/foo",
		WantActions: cat([]actions.Action{revision}, created(parallel, 0), created(parallel, 1),
			[]actions.Action{actions.UpdateStatus(setStatus(parallel, appsv1.StatefulSetStatus{}))}),
		WantEvents: cat(createdEvents(parallel, 0), createdEvents(parallel, 1)),
	}, {
		// TestStatefulSetControllerDeletes: a scale to 0 deletes the
		// highest ordinal first, one at a time.
		Name: "scales down from the highest ordinal",
		Objects: []runtime.Object{deletes, statefulSetPod(deletes, 0, true), statefulSetPod(deletes, 1, true), statefulSetPod(deletes, 2, true),
			claim(deletes, 0), claim(deletes, 1), claim(deletes, 2)},
		Key: "default/foo",
		// The status counts the pods the sync listed: 3.
		WantActions: []actions.Action{revision, actions.Delete(statefulSetPod(deletes, 2, true)),
			actions.UpdateStatus(setStatus(deletes, appsv1.StatefulSetStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3, CurrentReplicas: 3, UpdatedReplicas: 3}))},
		WantEvents: []records.Event{fixture.NewEvent(deletes, corev1.EventTypeNormal, "SuccessfulDelete", "Delete Pod foo-2 in StatefulSet foo successful")},
	}, {
		// TestStatefulSetControllerDeletionTimestamp: no pod for a set
		// being deleted (the revision and status are still written).
		Name:        "creates no pod for a StatefulSet being deleted",
		Objects:     []runtime.Object{deleting},
		Key:         "default/foo",
		WantActions: []actions.Action{revision, actions.UpdateStatus(setStatus(deleting, appsv1.StatefulSetStatus{}))},
	}, {
		// TestStatefulSetControllerDeletionTimestampRace: the cache says
		// the set lives, the server (a reactor: a stale cache cannot be
		// seeded) that it is being deleted; the orphan is not adopted and
		// no pod is created.
		Name:    "rechecks a deletion the cache has not seen before adopting",
		Objects: []runtime.Object{race, raceOrphan},
		Key:     "default/foo",
		Options: []fixture.Option{fixture.WithReactor("get", "statefulsets", func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, raceDeleted.DeepCopy(), nil
		})},
		WantReads: []actions.Action{actions.Get(race)},
		WantErr:   fixture.ErrorContains("default/foo has just been deleted"),
	}, {
		// TestGetPodsForStatefulSetAdopt: the orphan with the set's labels
		// and a name of the set is adopted (a patch of its owner
		// references); the one without the labels and the one with
		// another name are not. The other pods are there and ready: the
		// sync then only writes the status.
		Name: "adopts an orphan with its labels and name",
		Objects: []runtime.Object{adopt, statefulSetPod(adopt, 0, true), statefulSetPod(adopt, 1, true), orphan, wrongLabels, wrongName,
			claim(adopt, 0), claim(adopt, 1), claim(adopt, 2)},
		Key: "default/foo",
		WantActions: []actions.Action{
			actions.Patch(orphan, types.StrategicMergePatchType, nil).Where(ownerIs(adopt)),
			revision,
			actions.UpdateStatus(setStatus(adopt, appsv1.StatefulSetStatus{Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3, CurrentReplicas: 3, UpdatedReplicas: 3})),
		},
	}}
}

// newestSortingFirstRow is ReplacesPods (stateful_set_control_test.go) as a
// row: see TestStatefulSetNewestSortingFirst.
func newestSortingFirstRow() fixture.Row {
	replaces := newStatefulSet(11)
	replaces.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	running := []runtime.Object{replaces}
	for i := range 10 {
		if i != 2 {
			running = append(running, statefulSetPod(replaces, i, true), claim(replaces, i))
		}
	}

	return fixture.Row{
		// ReplacesPods (stateful_set_control_test.go, which runs under
		// both policies): pods 2 and 10 deleted from a running Parallel
		// set of 11 are created again with their claims, one after the
		// other (the slow-start batches over the ordinals are [0], [1 2],
		// [3-6], [7-10]; pods in one batch are created concurrently).
		// foo-10's key sorts before foo-2's: the second sync's consistency
		// check (the pods it wrote must be in the informer's cache) passes
		// only when the informer records the newest resourceVersion, not
		// the last key's.
		Name:    "creates deleted pods again, the newest sorting first",
		Objects: running,
		Key:     "default/foo",
		WantActions: cat([]actions.Action{revision}, created(replaces, 2), created(replaces, 10),
			[]actions.Action{actions.UpdateStatus(setStatus(replaces, appsv1.StatefulSetStatus{Replicas: 9, ReadyReplicas: 9, AvailableReplicas: 9, CurrentReplicas: 9, UpdatedReplicas: 9}))}),
		WantEvents: cat(createdEvents(replaces, 2), createdEvents(replaces, 10)),
	}
}

// ownerIs checks that a patch makes owner the object's controller.
func ownerIs(owner metav1.Object) func(actions.Action) error {
	return func(got actions.Action) error {
		want := fmt.Sprintf(`"uid":"%s"`, owner.GetUID())
		if !strings.Contains(string(got.Patch), want) || !strings.Contains(string(got.Patch), `"controller":true`) {
			return fmt.Errorf("the patch %s does not make %s its controller", got.Patch, owner.GetName())
		}
		return nil
	}
}

func TestStatefulSet(t *testing.T) {
	statefulSetTable().Run(t)
}
