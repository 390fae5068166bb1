package kcm

import (
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
	"github.com/ctrltest/ctrltest/records"
)

// rsBurst is the rows' burstReplicas: small enough that a scale-up to 5
// takes three batches, each waiting for the informer to show the last.
const rsBurst = 2

// newRS is upstream's newReplicaSet (replica_set_test.go) as a server
// holds it: a fixed uid, generation 1, a template whose labels match the
// selector, and no owner (upstream's owner reference names no kind and no
// object, which kube-apiserver refuses).
func newRS(replicas int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "foobar", Namespace: metav1.NamespaceDefault, UID: "foobar-uid", Generation: 1},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: fooBar},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: fooBar},
				Spec: corev1.PodSpec{
					Containers:    []corev1.Container{{Name: "bar", Image: "foo/bar"}},
					NodeSelector:  map[string]string{"baz": "blah"},
					RestartPolicy: corev1.RestartPolicyAlways,
				},
			},
		},
	}
}

// rsPod is upstream's newPod: a pod of rs's labels in phase, Ready when
// Running, controlled by rs when owned (the model admits it as kube-apiserver would: the table has the
// server's defaults).
func rsPod(name string, rs *appsv1.ReplicaSet, phase corev1.PodPhase, owned bool) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: rs.Namespace, UID: types.UID(name + "-uid"), Labels: rs.Spec.Selector.MatchLabels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "bar", Image: "foo/bar"}}},
		Status:     corev1.PodStatus{Phase: phase},
	}
	if phase == corev1.PodRunning {
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	}
	if owned {
		pod.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}
	}
	return pod
}

// rsStatus is rs with status st, for a status write (a subset).
func rsStatus(rs *appsv1.ReplicaSet, st appsv1.ReplicaSetStatus) *appsv1.ReplicaSet {
	rs = rs.DeepCopy()
	rs.Status = st
	return rs
}

// rsPodCreate is the create of a pod of rs (generateName "foobar-").
func rsPodCreate(rs *appsv1.ReplicaSet) actions.Action {
	a := actions.Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: rs.Name + "-", Labels: rs.Spec.Template.Labels,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}}})
	a.Namespace = rs.Namespace // the request's; the controller's pod has none
	return a
}

// adopted is the patch by which rs adopts pod: its controller reference,
// with rs's uid.
func adopted(pod *corev1.Pod, rs *appsv1.ReplicaSet) actions.Action {
	return actions.Patch(pod, types.StrategicMergePatchType, nil).Where(func(got actions.Action) error {
		if p := string(got.Patch); !strings.Contains(p, `"ownerReferences"`) || !strings.Contains(p, string(rs.UID)) || !strings.Contains(p, `"controller":true`) {
			return fmt.Errorf("the patch %s does not make %s the pod's controller", got.Patch, rs.Name)
		}
		return nil
	})
}

// replicaSetTable is the ReplicaSet controller's table: every default
// check, kube-apiserver's defaulting and validation on seeds and writes
// (kube.Server()).
func replicaSetTable() fixture.Table[string] {
	return fixture.Table[string]{
		Wire:          ReplicaSet(rsBurst),
		Options:       []fixture.Option{kube.Server()},
		ActionOptions: []actions.Option{actions.Subset()},
		Rows:          replicaSetRows(),
	}
}

func replicaSetRows() []fixture.Row {
	two := newRS(2)
	synced := appsv1.ReplicaSetStatus{Replicas: 2, FullyLabeledReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2, ObservedGeneration: 1, TerminatingReplicas: ptr.To[int32](0)}
	matching := rsStatus(two, synced)

	five := newRS(5)

	pending := rsPod("pod2", two, corev1.PodPending, true)

	other := rsPod("pod", two, corev1.PodRunning, false)
	other.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "another", UID: "another-uid", Controller: ptr.To(true)}}

	orphan1, orphan2 := rsPod("pod1", two, corev1.PodRunning, false), rsPod("pod2", two, corev1.PodRunning, false)

	deleting := newRS(2)
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	deleting.Finalizers = []string{"example.com/hold"}

	return []fixture.Row{{
		// TestSyncReplicaSetDoesNothing: 2 running pods for 2 replicas, and
		// a status that says so: no write.
		Name:    "does nothing when its pods match",
		Objects: []runtime.Object{matching, rsPod("pod0", two, corev1.PodRunning, true), rsPod("pod1", two, corev1.PodRunning, true)},
		Key:     "default/foobar",
	}, {
		// TestSyncReplicaSetDeletes: 3 pods for 2 replicas: one delete,
		// of the pod that ranks lowest (pending before running). The
		// status counts the pods the sync listed, before the delete.
		Name:        "deletes the pod too many",
		Objects:     []runtime.Object{matching, rsPod("pod0", two, corev1.PodRunning, true), rsPod("pod1", two, corev1.PodRunning, true), pending},
		Key:         "default/foobar",
		WantActions: []actions.Action{actions.Delete(pending), actions.UpdateStatus(rsStatus(two, appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 2, ObservedGeneration: 1}))},
		WantEvents:  []records.Event{fixture.NewEvent(two, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: pod2")},
	}, {
		// TestControllerBurstReplicas: a scale-up to 5 creates a burst of
		// 2 pods, then waits for the informer to show them (its
		// expectations) before the next burst. The row's settling check
		// follows the keys the pod handlers enqueue to 5 pods
		// (TestReplicaSetBurstSettles counts them).
		Name:        "creates a burst of pods, then waits for the informer to show them",
		Objects:     []runtime.Object{five},
		Key:         "default/foobar",
		WantActions: []actions.Action{rsPodCreate(five), rsPodCreate(five), actions.UpdateStatus(rsStatus(five, appsv1.ReplicaSetStatus{ObservedGeneration: 1}))},
		WantEvents: []records.Event{
			fixture.NewEvent(five, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: foobar-00001"),
			fixture.NewEvent(five, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: foobar-00002"),
		},
	}, {
		// TestPatchPodFails, without the failure: two orphans that match
		// are adopted, one patch each; no create.
		Name:          "adopts the orphans its selector matches",
		Objects:       []runtime.Object{two, orphan1, orphan2},
		Key:           "default/foobar",
		WantActions:   []actions.Action{adopted(orphan1, two), adopted(orphan2, two), actions.UpdateStatus(rsStatus(two, synced))},
		ActionOptions: []actions.Option{actions.Unordered()}, // in the lister's order, a map's
	}, {
		// TestDoNotPatchPodWithOtherControlRef: a matching pod another
		// ReplicaSet controls is left alone; 2 pods are created.
		Name:        "does not adopt a pod another controller controls",
		Objects:     []runtime.Object{two, other},
		Key:         "default/foobar",
		WantActions: []actions.Action{rsPodCreate(two), rsPodCreate(two), actions.UpdateStatus(rsStatus(two, appsv1.ReplicaSetStatus{ObservedGeneration: 1}))},
		WantEvents: []records.Event{
			fixture.NewEvent(two, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: foobar-00001"),
			fixture.NewEvent(two, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: foobar-00002"),
		},
	}, {
		// TestDoNotAdoptOrCreateIfBeingDeleted: no patch, no create.
		Name:        "neither adopts nor creates while being deleted",
		Objects:     []runtime.Object{deleting, rsPod("pod1", two, corev1.PodRunning, false)},
		Key:         "default/foobar",
		WantActions: []actions.Action{actions.UpdateStatus(rsStatus(deleting, appsv1.ReplicaSetStatus{ObservedGeneration: 1}))},
	}, {
		// A ReplicaSet already gone: nothing to do.
		Name:    "does nothing for a deleted ReplicaSet",
		Objects: []runtime.Object{fixture.Absent(newRS(1))},
		Key:     "default/foobar",
	}}
}

func TestReplicaSet(t *testing.T) {
	replicaSetTable().Run(t)
}

// TestReplicaSetBurstSettles follows a scale-up to 5 with a burst of 2 to
// its end, as the controller's workers would: each batch's pod events reach
// the controller's handlers, which mark its expectations observed and
// enqueue the ReplicaSet, and the next sync creates the next batch. Issue
// 20's false pass: when the fixture wrote the world into the informers'
// indexers without calling the handlers, the run "settled" with 2 pods. In
// the default mode and with running informers alike, it ends with 5.
func TestReplicaSetBurstSettles(t *testing.T) {
	for _, mode := range []struct {
		name string
		opts []fixture.Option
	}{{"fed informers", nil}, {"running informers", []fixture.Option{fixture.WithInformers()}}} {
		t.Run(mode.name, func(t *testing.T) {
			rs := newRS(5)
			f := fixture.New(t, append([]fixture.Option{kube.Server(), fixture.WithObjects(rs)}, mode.opts...)...)
			c := fixture.Converge(f, ReplicaSet(rsBurst)(f), "default/foobar", 10)
			if !c.Converged {
				t.Fatalf("did not converge:\n%s", c)
			}
			if pods := f.Objects(&corev1.Pod{}); len(pods) != 5 {
				t.Errorf("settled with %d pods, want 5:\n%s", len(pods), c)
			}
			creates := 0
			for _, step := range c.Steps {
				for _, a := range step.Actions() {
					if a.Verb == actions.VerbCreate && a.Resource.Resource == "pods" {
						creates++
					}
				}
				if n := len(step.Actions()); n > rsBurst+1 {
					t.Errorf("a sync made %d writes: more pods than a burst (%d) and a status write:\n%s", n, rsBurst, c)
				}
			}
			if creates != 5 {
				t.Errorf("%d pod creates, want 5:\n%s", creates, c)
			}
		})
	}
}
