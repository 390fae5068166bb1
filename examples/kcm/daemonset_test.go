package kcm

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/examples/kcm/internal/reach"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
	"github.com/ctrltest/ctrltest/records"
)

var (
	simpleDaemonSetLabel = map[string]string{"name": "simple-daemon", "type": "production"}
	simpleNodeLabel      = map[string]string{"color": "blue", "speed": "fast"}
)

// newDaemonSet is upstream's newDaemonSet (daemon_controller_test.go),
// with a fixed uid and a toleration (see below), as kube-apiserver holds
// it: the DaemonSet strategy gives a created DaemonSet template
// generation 1, which apps/v1 keeps in the
// deprecated.daemonset.template.generation annotation (the controller
// copies it into its pods' pod-template-generation label and its
// ControllerRevisions).
func newDaemonSet(name string) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: metav1.NamespaceDefault, UID: "ds-uid", Annotations: map[string]string{appsv1.DeprecatedTemplateGeneration: "1"}},
		Spec: appsv1.DaemonSetSpec{
			RevisionHistoryLimit: ptr.To[int32](2),
			UpdateStrategy:       appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType},
			Selector:             &metav1.LabelSelector{MatchLabels: simpleDaemonSetLabel},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: simpleDaemonSetLabel},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "foo", Image: "foo/bar", ImagePullPolicy: corev1.PullIfNotPresent}},
					DNSPolicy:  corev1.DNSDefault,
					// Not upstream's: kube-apiserver's TaintNodesByCondition
					// admission taints a node it creates not-ready (NoSchedule)
					// until the node lifecycle controller sees it ready, so
					// without this toleration the nodes the rows seed on a
					// server (TestDaemonSetParity) would get no pod there.
					Tolerations: []corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
				},
			},
		},
	}
}

// newNode is upstream's newNode: ready, room for 100 pods; as
// kube-apiserver holds a created node, tainted not-ready by its
// TaintNodesByCondition admission (a cluster's node lifecycle controller,
// which no row runs, would remove the taint).
func newNode(name string, labels map[string]string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{Taints: []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
			Allocatable: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("100")},
		},
	}
}

// nodes are upstream's addNodes: node-<start> to node-<start+n-1>.
func nodes(start, n int, labels map[string]string) []runtime.Object {
	var out []runtime.Object
	for i := start; i < start+n; i++ {
		out = append(out, newNode(fmt.Sprintf("node-%d", i), labels))
	}
	return out
}

// daemonPods are upstream's addPods: n pods of ds on node, with labels,
// named <node>-<label type>-<i> (the model admits them as kube-apiserver would: the table has
// the server's defaults).
func daemonPods(node string, labels map[string]string, ds *appsv1.DaemonSet, n int) []runtime.Object {
	var out []runtime.Object
	for i := range n {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("%s-%s-%d", node, labels["type"], i), Namespace: metav1.NamespaceDefault, Labels: labels,
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ds, appsv1.SchemeGroupVersion.WithKind("DaemonSet"))},
			},
			Spec: *ds.Spec.Template.Spec.DeepCopy(),
		}
		pod.Spec.NodeName = node
		out = append(out, pod)
	}
	return out
}

// daemonSetWire builds the controller with burst as its burstReplicas
// (250, upstream's BurstReplicas, when 0).
func daemonSetWire(burst int) func(*fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		dsc := newDaemonSetsController(f)
		if burst > 0 {
			*reach.DaemonSetBurstReplicas.Of(f.T(), dsc) = burst
		}
		return *reach.DaemonSetSync.Of(f.T(), dsc)
	}
}

func daemonSetTable() fixture.Table[string] {
	return fixture.Table[string]{
		Wire:          DaemonSet,
		Options:       []fixture.Option{kube.Server()},
		ActionOptions: []actions.Option{actions.Subset()},
		Rows:          daemonSetRows(),
	}
}

// The names of the ControllerRevisions the controller makes for
// newDaemonSet's template (and with simpleNodeLabel as its node
// selector), as the server defaults them: the set's name and the hash
// of the revision's data.
const (
	daemonSetRevision         = "foo-77bf68df6d"
	daemonSetSelectorRevision = "foo-dc989f4b9"
)

// dsRevision is the create of ds's first ControllerRevision.
func dsRevision(name string) actions.Action {
	a := actions.Create(&appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: name}, Revision: 1})
	a.Namespace = "default"
	return a
}

// daemonPodCreate is the create of a pod of ds (generateName "foo-"; the
// node it is for is in its affinity, not compared: which node's pod is
// created first varies).
func daemonPodCreate(ds *appsv1.DaemonSet) actions.Action {
	a := actions.Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: ds.Name + "-", Labels: ds.Spec.Template.Labels}})
	a.Namespace = ds.Namespace // the request's; the controller's pod has none
	return a
}

// dsStatus is ds with status st, for a status write (a subset).
func dsStatus(ds *appsv1.DaemonSet, st appsv1.DaemonSetStatus) *appsv1.DaemonSet {
	ds = ds.DeepCopy()
	st.ObservedGeneration = 1
	ds.Status = st
	return ds
}

func createdPod(ds *appsv1.DaemonSet, name string) records.Event {
	return fixture.NewEvent(ds, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: "+name)
}

func daemonSetRows() []fixture.Row {
	simple := newDaemonSet("foo")

	deleting := newDaemonSet("foo")
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	deleting.Finalizers = []string{"example.com/hold"}

	race := newDaemonSet("foo")
	raceDeleted := race.DeepCopy()
	raceDeleted.DeletionTimestamp = ptr.To(metav1.Now())
	raceOrphan := daemonPods("node-0", simpleDaemonSetLabel, race, 1)[0].(*corev1.Pod)
	raceOrphan.OwnerReferences = nil

	selector := newDaemonSet("foo")
	selector.Spec.Template.Spec.NodeSelector = simpleNodeLabel
	misplaced := daemonPods("node-0", simpleDaemonSetLabel, selector, 1)[0].(*corev1.Pod)

	return []fixture.Row{{
		// TestOneNodeDaemonLaunchesPod: a pod on the one node. (Upstream's
		// TestSimpleDaemonSetLaunchesPods, on 5 nodes, is
		// TestDaemonSetBurst here: with more than one node, which node's pod
		// is created first varies, and a row's writes and events are
		// ordered.)
		Name:        "launches a pod on its one node",
		Objects:     []runtime.Object{simple, newNode("only-node", nil)},
		Key:         "default/foo",
		WantActions: []actions.Action{dsRevision(daemonSetRevision), daemonPodCreate(simple), actions.UpdateStatus(dsStatus(simple, appsv1.DaemonSetStatus{DesiredNumberScheduled: 1}))},
		WantEvents:  []records.Event{createdPod(simple, "foo-00001")},
	}, {
		// TestNoNodesDoesNothing: no pod (the revision and status are
		// written).
		Name:        "does nothing without nodes",
		Objects:     []runtime.Object{simple},
		Key:         "default/foo",
		WantActions: []actions.Action{dsRevision(daemonSetRevision), actions.UpdateStatus(dsStatus(simple, appsv1.DaemonSetStatus{}))},
	}, {
		// TestDontDoAnythingIfBeingDeleted: not even the revision.
		Name:    "does nothing while being deleted",
		Objects: cat([]runtime.Object{deleting}, nodes(0, 1, nil)),
		Key:     "default/foo",
	}, {
		// TestDontDoAnythingIfBeingDeletedRace: the cache says the set
		// lives, the server (a reactor) that it is being deleted; the
		// orphan blocks every pod action, the sync fails.
		Name:    "rechecks a deletion the cache has not seen before adopting",
		Objects: cat([]runtime.Object{race, raceOrphan}, nodes(0, 5, nil)),
		Key:     "default/foo",
		Options: []fixture.Option{fixture.WithReactor("get", "daemonsets", func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, raceDeleted.DeepCopy(), nil
		})},
		WantActions: []actions.Action{dsRevision(daemonSetRevision)},
		// Two rechecks: the pods are claimed again for the status update
		// after the failure.
		WantReads: []actions.Action{actions.Get(race), actions.Get(race)},
		WantErr:   fixture.ErrorContains("default/foo has just been deleted"),
	}, {
		// TestSelectorDaemonDeletesUnselectedPods, on one node of each
		// kind (deletes run concurrently: their order, and their events',
		// varies): the pod on the node the selector leaves out is deleted,
		// one is launched on the selected node. Upstream's pods whose
		// labels no longer match are left out: the controller releases
		// them once per listing of its pods, two or three times a sync
		// depending on when the informer sees the first release (as on a
		// cluster), so the number of patches varies.
		Name:    "deletes pods on unselected nodes and launches on selected ones",
		Objects: cat([]runtime.Object{selector, misplaced}, nodes(0, 1, nil), nodes(1, 1, simpleNodeLabel)),
		Key:     "default/foo",
		// The status counts the pods the informer held (see doc.go).
		WantActions: []actions.Action{
			dsRevision(daemonSetSelectorRevision), daemonPodCreate(selector), actions.Delete(misplaced),
			actions.UpdateStatus(dsStatus(selector, appsv1.DaemonSetStatus{DesiredNumberScheduled: 1})),
		},
		WantEvents: []records.Event{createdPod(selector, "foo-00001"), fixture.NewEvent(selector, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: "+misplaced.Name)},
	}}
}

func TestDaemonSet(t *testing.T) {
	daemonSetTable().Run(t)
}

// burstDaemonSetRow is the false pass: five nodes and a burst of 2
// (upstream's TestSimpleDaemonSetLaunchesPods with fewer burstReplicas,
// as TestSimpleDaemonSetPodCreateErrors sets them): the first sync creates
// 2 pods and expects to see them; each later sync creates more once the
// informer has shown it those, 2, 2 and 1.
func burstDaemonSetRow() fixture.Row {
	ds := newDaemonSet("foo")
	return fixture.Row{
		Name:        "launches pods in bursts",
		Objects:     cat([]runtime.Object{ds}, nodes(0, 5, nil)),
		Key:         "default/foo",
		WantActions: []actions.Action{dsRevision(daemonSetRevision), daemonPodCreate(ds), daemonPodCreate(ds), actions.UpdateStatus(dsStatus(ds, appsv1.DaemonSetStatus{DesiredNumberScheduled: 5}))},
		WantEvents:  []records.Event{createdPod(ds, "foo-00001"), createdPod(ds, "foo-00002")},
	}
}

// TestDaemonSetBurst runs burstDaemonSetRow as a row, then converges the
// same world and counts the pods: 5, one per node, as on a cluster. It is
// issue 20's false pass: before the default mode called event handlers,
// the expectations of the first burst were never lowered and the row
// "settled after 3 syncs" with 2 pods.
func TestDaemonSetBurst(t *testing.T) {
	opts := []fixture.Option{kube.Server()}
	row := burstDaemonSetRow()
	fixture.Table[string]{Wire: daemonSetWire(2), Options: opts, ActionOptions: []actions.Option{actions.Subset()}, Rows: []fixture.Row{row}}.Run(t)

	f := fixture.New(t, append(opts, fixture.WithObjects(row.Objects...))...)
	c := fixture.Converge(f, daemonSetWire(2)(f), row.Key, 10)
	if !c.Converged {
		t.Fatalf("did not converge: %v", c)
	}
	if got := len(f.Objects(&corev1.Pod{})); got != 5 {
		t.Errorf("after %d syncs the world holds %d pods, want 5 (one per node):\n%v", len(c.Steps), got, c)
	}
}
