package bench

// This file is the hand-written fixture of the owner example
// (examples/owner: one ReplicaSet per Deployment) that BenchmarkFullRow
// compares ctrltest with. It follows kube-controller-manager's
// pkg/controller/deployment/deployment_controller_test.go (newFixture,
// f.objects beside the lister slices dLister and rsLister, newController
// building fake.NewSimpleClientset(f.objects...) and an informer factory and
// adding each lister object to its informer's indexer, run_ syncing once,
// filterInformerActions, expectations built with core.NewCreateAction and
// core.NewUpdateAction with Subresource "status"), with these adaptations,
// none of which makes it cheaper than upstream's:
//
//   - It takes a testing.TB, so that the benchmarks can give it the same
//     per-iteration test as ctrltest (see iterTB).
//   - It compares each action's object with reflect.DeepEqual (checkAction,
//     as sample-controller's fixture does), where upstream's deployment
//     fixture compares verbs, resources and subresources only: ctrltest
//     compares objects too.
//   - It does not start the informers. Upstream's run starts them (without
//     waiting for their caches and without shutting them down, which leaves
//     their goroutines behind); the sync reads the indexers either way.
//   - The controller has no event recorder to replace and no listers-synced
//     functions to stub.

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubeinformers "k8s.io/client-go/informers"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	core "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/examples/owner"
)

// The owner case is the owner example's row "recreates a lost ReplicaSet,
// then resets the status" (upstream's TestSyncDeploymentCreatesReplicaSet
// in shape): a Deployment default/web asking for 3 replicas, whose status
// says 3, and no ReplicaSet. The controller creates web-rs, whose status
// says 0 replicas, then updates the Deployment's status to 0.
const (
	ownerRowName = "recreates a lost ReplicaSet, then resets the status"
	ownerKey     = metav1.NamespaceDefault + "/web"
)

// wantOwnerWrites are the owner case's writes, as "verb resource[/subresource]".
var wantOwnerWrites = []string{"create replicasets", "update deployments/status"}

// ownerDeployment is the owner example's Deployment "web" asking for
// replicas, whose status reports statusReplicas (examples/owner's
// deployment; it is unexported there, so it is spelled out here).
func ownerDeployment(replicas, statusReplicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": "web"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: metav1.NamespaceDefault, UID: "web-uid"},
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

// ownerReplicaSet is the ReplicaSet controlled by d that the controller
// creates (examples/owner's replicaSet, status 0).
func ownerReplicaSet(d *appsv1.Deployment, replicas int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            owner.ReplicaSetName(d),
			Namespace:       d.Namespace,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(replicas),
			Selector: d.Spec.Selector.DeepCopy(),
			Template: *d.Spec.Template.DeepCopy(),
		},
	}
}

type ownerFixture struct {
	t testing.TB

	client *k8sfake.Clientset
	// Objects to put in the store.
	dLister  []*appsv1.Deployment
	rsLister []*appsv1.ReplicaSet

	// Actions expected to happen on the client.
	actions []core.Action
	// Objects from here are preloaded into NewSimpleFake.
	objects []runtime.Object
}

func newOwnerFixture(t testing.TB) *ownerFixture {
	f := &ownerFixture{}
	f.t = t
	f.objects = []runtime.Object{}
	return f
}

func (f *ownerFixture) expectCreateRSAction(rs *appsv1.ReplicaSet) {
	f.actions = append(f.actions, core.NewCreateAction(schema.GroupVersionResource{Resource: "replicasets"}, rs.Namespace, rs))
}

func (f *ownerFixture) expectUpdateDeploymentStatusAction(d *appsv1.Deployment) {
	action := core.NewUpdateAction(schema.GroupVersionResource{Resource: "deployments"}, d.Namespace, d)
	action.Subresource = "status"
	f.actions = append(f.actions, action)
}

func (f *ownerFixture) newController() (*owner.Controller, kubeinformers.SharedInformerFactory) {
	f.client = k8sfake.NewSimpleClientset(f.objects...)
	informers := kubeinformers.NewSharedInformerFactory(f.client, noResyncPeriodFunc())
	c := owner.New(f.client, informers.Apps().V1().Deployments(), informers.Apps().V1().ReplicaSets())
	for _, d := range f.dLister {
		_ = informers.Apps().V1().Deployments().Informer().GetIndexer().Add(d)
	}
	for _, rs := range f.rsLister {
		_ = informers.Apps().V1().ReplicaSets().Informer().GetIndexer().Add(rs)
	}
	return c, informers
}

// run is upstream's run_: with startInformers (as upstream's run always
// does), the informers are started before the sync and stopped after it.
// Upstream does not wait for their caches; this fixture does, so that the
// informers' lists are inside the measured op and never race the sync.
func (f *ownerFixture) run(ctx context.Context, deploymentName string, startInformers bool) {
	c, informers := f.newController()
	if startInformers {
		stopCh := make(chan struct{})
		defer func() {
			close(stopCh)
			informers.Shutdown()
		}()
		informers.Start(stopCh)
		informers.WaitForCacheSync(stopCh)
	}
	key, err := cache.ParseObjectName(deploymentName)
	if err != nil {
		f.t.Fatalf("parsing key %q: %v", deploymentName, err)
	}

	if err := c.Sync(ctx, key); err != nil {
		f.t.Errorf("error syncing deployment: %v", err)
	}

	actions := filterOwnerInformerActions(f.client.Actions())
	for i, action := range actions {
		if len(f.actions) < i+1 {
			f.t.Errorf("%d unexpected actions: %+v", len(actions)-len(f.actions), actions[i:])
			break
		}

		expectedAction := f.actions[i]
		checkAction(expectedAction, action, f.t)
	}

	if len(f.actions) > len(actions) {
		f.t.Errorf("%d additional expected actions:%+v", len(f.actions)-len(actions), f.actions[len(actions):])
	}
}

// filterOwnerInformerActions filters list and watch actions for testing
// resources, as upstream's deployment fixture does.
func filterOwnerInformerActions(actions []core.Action) []core.Action {
	ret := []core.Action{}
	for _, action := range actions {
		if len(action.GetNamespace()) == 0 &&
			(action.Matches("list", "deployments") ||
				action.Matches("list", "replicasets") ||
				action.Matches("watch", "deployments") ||
				action.Matches("watch", "replicasets")) {
			continue
		}
		ret = append(ret, action)
	}

	return ret
}
