package foo

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/controller"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

// TestFooControllerChecks runs the scenarios of TestFooController with
// every check beyond one sync:
//
//   - idempotency (on by default): each row syncs its key again on the world
//     its sync left, and fails if that second sync changes the stored world
//     (a write that changes nothing is listed as redundant, not failed);
//   - convergence: with WantObjects, each row then syncs until the world
//     settles and compares the Foos and Deployments the clientsets hold;
//   - the fault sweep (Sweep): each row is run again once per write and per
//     fault kube-apiserver could answer it with (a server error for each; a
//     conflict and not-found for its updates, which carry the
//     resourceVersion they read; see docs/faults.md), with that write
//     failing. The Foo controller returns the error of every failed write,
//     so that its worker retries the key: no fault is handled by design,
//     and no row declares HandlesFault;
//   - the cache-mutation check (on by default in every sync);
//
// all against the fixture's model of the API server (on by default).
func TestFooControllerChecks(t *testing.T) {
	foo, synced := NewFoo(1), fixture.NewEvent(NewFoo(1), "Normal", controller.SuccessSynced, controller.MessageResourceSynced)
	withStatus := foo.DeepCopy()
	withStatus.Status.AvailableReplicas = 1
	available := Available(NewDeployment(foo, 1))

	foo2 := NewFoo(2)
	foo2WithStatus := foo2.DeepCopy()
	foo2WithStatus.Status.AvailableReplicas = 1
	scaledAvailable := NewDeployment(foo2, 2) // available, scaled to 2
	scaledAvailable.Status = available.Status

	fixture.Table[cache.ObjectName]{
		Wire:    Wire,
		Options: []fixture.Option{fixture.WithClientset(Foos)},
		Checks:  fixture.Checks{FaultSweep: fixture.On},
		Rows: []fixture.Row{{
			Name:        "creates a Deployment",
			Objects:     []runtime.Object{foo},
			Key:         "default/test",
			WantActions: []actions.Action{actions.Create(NewDeployment(foo, 1))},
			WantEvents:  []records.Event{synced},
			WantObjects: []runtime.Object{foo, NewDeployment(foo, 1)},
		}, {
			Name:        "does nothing when in sync",
			Objects:     []runtime.Object{withStatus, available},
			Key:         "default/test",
			WantEvents:  []records.Event{synced},
			WantObjects: []runtime.Object{withStatus, available},
		}, {
			Name:        "reports available replicas",
			Objects:     []runtime.Object{foo, available},
			Key:         "default/test",
			WantActions: []actions.Action{actions.UpdateStatus(withStatus)},
			WantEvents:  []records.Event{synced},
			WantObjects: []runtime.Object{withStatus, available},
		}, {
			Name:        "updates the Deployment's replicas",
			Objects:     []runtime.Object{foo2, NewDeployment(foo, 1)},
			Key:         "default/test",
			WantActions: []actions.Action{actions.Update(NewDeployment(foo2, 2))},
			WantEvents:  []records.Event{synced},
			WantObjects: []runtime.Object{foo2, NewDeployment(foo2, 2)},
		}, {
			Name:    "scales and reports in one sync",
			Objects: []runtime.Object{foo2, available},
			Key:     "default/test",
			// The update of the Deployment returns it with its status
			// (the status subresource keeps it); the Foo's status is
			// reported from that.
			WantActions: []actions.Action{actions.Update(scaledAvailable), actions.UpdateStatus(foo2WithStatus)},
			WantEvents:  []records.Event{synced},
			WantObjects: []runtime.Object{foo2WithStatus, scaledAvailable},
		}, {
			Name:    "ignores a deleted Foo",
			Objects: []runtime.Object{fixture.Absent(NewFoo(1))},
			Key:     "default/test",
		}, {
			// No WantObjects: a sync that fails is retried, so this world
			// never settles, as on a cluster, until someone deletes the
			// Deployment.
			Name:    "refuses a Deployment it does not control",
			Objects: []runtime.Object{foo, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "test", Namespace: "default"}}},
			Key:     "default/test",
			WantErr: fixture.ErrorContains("not managed by Foo"),
			WantEvents: []records.Event{fixture.NewEvent(foo, "Warning", controller.ErrResourceExists,
				`Resource "test" already exists and is not managed by Foo`)},
		}},
	}.Run(t)
}

// TestFooDeploymentHandler tests the controller's Deployment event handler
// in informer mode: the fixture starts the informers (controller.New has
// registered the handlers on them), the test writes Deployments through the
// clientset, as the Deployment controller or a user would, and awaits what
// the handler puts on the work queue: a bounded wait, no sleeps.
//
// The handler ignores an update whose resourceVersion did not change (a
// periodic resync); informer mode turns on fixture.ResourceVersions, since
// client-go's fakes never change it.
func TestFooDeploymentHandler(t *testing.T) {
	t.Run("a Deployment a Foo controls enqueues the Foo", func(t *testing.T) {
		foo := NewFoo(1)
		f := fixture.New(t, fixture.WithClientset(Foos), fixture.WithInformers(), fixture.WithObjects(foo))
		Wire(f)
		f.Start()
		f.AwaitEnqueued(records.Added("default/test")) // the Foo's own add

		deployments, ctx := f.Kube().AppsV1().Deployments("default"), f.Context()
		d, err := deployments.Create(ctx, NewDeployment(foo, 1), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		f.AwaitEnqueued(records.Added("default/test"))

		d.Status.AvailableReplicas = 1
		if _, err := deployments.UpdateStatus(ctx, d, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		f.AwaitEnqueued(records.Added("default/test"))

		if err := deployments.Delete(ctx, d.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		f.AwaitEnqueued(records.Added("default/test"))
	})

	t.Run("a Deployment no Foo controls enqueues nothing", func(t *testing.T) {
		other := NewFoo(1)
		other.Name, other.UID, other.Spec.DeploymentName = "other", "other-uid", "other"
		f := fixture.New(t, fixture.WithClientset(Foos), fixture.WithInformers(), fixture.WithObjects(NewFoo(1), other))
		Wire(f)
		f.Start()
		f.AwaitEnqueued(records.Added("default/other"), records.Added("default/test")) // the Foos' adds, in name order

		notControlled := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "plain"}}
		ownedByReplicaSet := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "owned",
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(
				&appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "test", UID: "rs-uid"}}, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}}}
		ghost := NewFoo(1)
		ghost.Name, ghost.UID, ghost.Spec.DeploymentName = "ghost", "ghost-uid", "ghost"
		controlledByAMissingFoo := NewDeployment(ghost, 1)

		deployments, ctx := f.Kube().AppsV1().Deployments("default"), f.Context()
		for _, d := range []*appsv1.Deployment{notControlled, ownedByReplicaSet, controlledByAMissingFoo, NewDeployment(other, 1)} {
			if _, err := deployments.Create(ctx, d, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		// The handler sees the events in order: had any of the first three
		// enqueued anything, it would come before the last one's Foo.
		f.AwaitEnqueued(records.Added("default/other"))
	})
}
