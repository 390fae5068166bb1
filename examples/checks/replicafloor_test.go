package checks

import (
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

func replicaFloor(v Variant) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		return NewReplicaFloor(f.Kube(), f.KubeInformers().Apps().V1().Deployments(), v).Sync
	}
}

// TestReplicaFloor is ordinary table testing: every sync is checked for
// changes to the informer caches, with nothing to ask for.
func TestReplicaFloor(t *testing.T) {
	fixture.Table[string]{
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
	}.Run(t)
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
			f := fixture.New(t, fixture.WithObjects(deployment(1)), fixture.WithoutCacheMutationCheck())
			f.InduceFailure(fixture.Failure{Verb: "update", Resource: "deployments", Times: 1,
				Err: apierrors.NewInternalError(errors.New("etcd is down"))})
			sync := replicaFloor(tt.variant)(f)
			fixture.Sync(f, sync, "default/web").AssertErr(fixture.AnyError()) // the update fails
			fixture.Sync(f, sync, "default/web")                               // the retry

			if got := *f.Object(web).(*appsv1.Deployment).Spec.Replicas; got != tt.wantReplicas {
				t.Errorf("after the retry the Deployment asks for %d replicas, want %d", got, tt.wantReplicas)
			}
		})
	}
}
