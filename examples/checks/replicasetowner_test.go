package checks

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

// TestReplicaSetOwnerSync shows what the controller does with a key: the
// rows of ReplicaSetOwnerTable (tables.go).
func TestReplicaSetOwnerSync(t *testing.T) {
	ReplicaSetOwnerTable().Run(t)
}

// TestReplicaSetOwnerHandlers tests the event handlers in informer mode:
// start the informers, write through the clientset as another component
// would, and await what the handlers put on the work queue (a bounded wait,
// no sleeps).
func TestReplicaSetOwnerHandlers(t *testing.T) {
	api := deployment(1)
	api.Name, api.UID = "api", "api-uid"
	f := fixture.New(t, fixture.WithInformers(), fixture.WithObjects(api, deployment(1)))
	newReplicaSetOwner(f, Correct)
	f.Start()
	// Starting the informers adds the seeded Deployments, in name order.
	f.AwaitEnqueued(records.Added("default/api"), records.Added("default/web"))

	replicaSets := f.Kube().AppsV1().ReplicaSets("default")
	ctx := f.Context()

	rs, err := replicaSets.Create(ctx, replicaSet(deployment(1), "web-1", 0), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.AwaitEnqueued(records.Added("default/web"))

	rs.Status.ReadyReplicas = 1
	if _, err := replicaSets.UpdateStatus(ctx, rs, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.AwaitEnqueued(records.Added("default/web"))

	if err := replicaSets.Delete(ctx, "web-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.AwaitEnqueued(records.Added("default/web"))

	// A ReplicaSet that no Deployment controls enqueues nothing. The
	// handlers see events in order, so had it enqueued anything, that would
	// come before the key of the next ReplicaSet's owner, api.
	if _, err := replicaSets.Create(ctx, replicaSet(nil, "orphan", 0), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := replicaSets.Create(ctx, replicaSet(api, "api-1", 0), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.AwaitEnqueued(records.Added("default/api"))
}

// TestReplicaSetOwnerForgottenUpdateIsCaught: the broken handler enqueues
// the owner when a ReplicaSet is added, but not when its status changes;
// the await then times out (after a second here, WithTimeout, rather than
// the default ten).
func TestReplicaSetOwnerForgottenUpdateIsCaught(t *testing.T) {
	mustCatch(t, "timed out", func(t testing.TB) {
		f := fixture.New(t, fixture.WithInformers(), fixture.WithTimeout(time.Second), fixture.WithObjects(deployment(1)))
		newReplicaSetOwner(f, Broken)
		f.Start()
		f.AwaitEnqueued(records.Added("default/web"))

		replicaSets := f.Kube().AppsV1().ReplicaSets("default")
		rs, err := replicaSets.Create(f.Context(), replicaSet(deployment(1), "web-1", 0), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		f.AwaitEnqueued(records.Added("default/web")) // adds are handled

		rs.Status.ReadyReplicas = 1
		if _, err := replicaSets.UpdateStatus(f.Context(), rs, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		f.AwaitEnqueued(records.Added("default/web")) // updates are not: timed out
	})
}
