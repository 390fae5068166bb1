package checks

import (
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

// TestReplicaFloor is ordinary table testing, on ReplicaFloorTable
// (tables.go): every sync is checked for changes to the informer caches,
// with nothing to ask for.
func TestReplicaFloor(t *testing.T) {
	ReplicaFloorTable().Run(t)
}

// TestReplicaFloorCacheMutationIsCaught: the broken ReplicaFloor makes the
// right write, so its actions pass; the sync fails all the same, naming the
// object and the field it changed in the cache.
func TestReplicaFloorCacheMutationIsCaught(t *testing.T) {
	mustCatch(t, "changed objects it read from an informer cache", func(t testing.TB) {
		f := fixture.New(t, fixture.WithObjects(deployment(1)))
		res := fixture.Sync(f, replicaFloor(Broken)(f), "default/web")
		res.AssertActions([]actions.Action{actions.Update(deployment(MinReplicas))})
	})
}

// TestReplicaFloorCacheMutationMatters shows why the check exists, with the
// check turned off: when the update fails, the broken ReplicaFloor's retry
// reads its own change back from the cache, and never scales the
// Deployment.
func TestReplicaFloorCacheMutationMatters(t *testing.T) {
	for _, tt := range []struct {
		variant      Variant
		wantReplicas int32 // after a failed sync and its retry
	}{
		{Correct, MinReplicas},
		{Broken, 1},
	} {
		t.Run(tt.variant.String(), func(t *testing.T) {
			f := fixture.New(t, fixture.WithObjects(deployment(1)), fixture.WithChecks(fixture.Checks{CacheMutation: fixture.Off}))
			f.InjectFault(fixture.Fault{Verb: "update", Resource: "deployments", Times: 1,
				Err: func(records.Request) error { return apierrors.NewInternalError(errors.New("etcd is down")) }})
			sync := replicaFloor(tt.variant)(f)
			fixture.Sync(f, sync, "default/web").AssertErr(fixture.AnyError()) // the update fails
			fixture.Sync(f, sync, "default/web")                               // the retry

			if got := *f.Object(web).(*appsv1.Deployment).Spec.Replicas; got != tt.wantReplicas {
				t.Errorf("after the retry the Deployment asks for %d replicas, want %d", got, tt.wantReplicas)
			}
		})
	}
}
