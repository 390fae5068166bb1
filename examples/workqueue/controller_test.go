package workqueue

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

// newTestController builds the controller from the fixture's pieces: its
// work-queue spy, the indexer and informer of the factory's Pod informer
// (the fixture seeds that indexer), its clientset and its event recorder.
func newTestController(f *fixture.Fixture) *Controller {
	pods := f.KubeInformers().Core().V1().Pods().Informer()
	return NewController(fixture.Queue[string](f), pods.GetIndexer(), pods, f.Kube(), f.Recorder())
}

func wire(f *fixture.Fixture) fixture.SyncFunc[string] {
	return newTestController(f).syncPod
}

func newPod(labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
	}
}

// conflict is a reaction that refuses every request with 409 Conflict, as
// the API server does when the object changed since it was read.
func conflict(action clienttesting.Action) (bool, runtime.Object, error) {
	return true, nil, apierrors.NewConflict(corev1.Resource("pods"), "web", errors.New("the object has been modified"))
}

func isConflict(err error) error {
	if !apierrors.IsConflict(err) {
		return fmt.Errorf("want a conflict error, got: %v", err)
	}
	return nil
}

func TestSyncPod(t *testing.T) {
	pod := newPod(map[string]string{"app": "web"})
	labelled := newPod(map[string]string{"app": "web", SeenLabel: "true"})

	fixture.Table[string]{
		Wire: wire,
		Rows: []fixture.Row{{
			Name:        "labels a new pod",
			Objects:     []runtime.Object{pod},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Update(labelled)},
			WantEvents:  []fixture.Event{fixture.NewEvent(labelled, corev1.EventTypeNormal, ReasonSeen, MessageSeen)},
		}, {
			Name:    "leaves a labelled pod alone",
			Objects: []runtime.Object{labelled},
			Key:     "default/web",
		}, {
			Name: "does nothing for a deleted pod",
			Key:  "default/web",
		}, {
			Name:     "returns the conflict of a failed update",
			Objects:  []runtime.Object{pod},
			Key:      "default/web",
			Reactors: []fixture.Reactor{{Verb: "update", Resource: "pods", React: conflict}},
			// The update was attempted (and recorded), but no event
			// claims success.
			WantActions: []actions.Action{actions.Update(labelled)},
			WantErr:     isConflict,
		}},
	}.Run(t)
}

// process handles one key the way a worker does: syncPod, then handleErr.
func process(c *Controller) fixture.SyncFunc[string] {
	return func(ctx context.Context, key string) error {
		err := c.syncPod(ctx, key)
		c.handleErr(ctx, err, key)
		return err
	}
}

// TestHandleErr reads the retry policy off the fixture's work-queue spy.
func TestHandleErr(t *testing.T) {
	t.Run("retries with backoff, then drops the key", func(t *testing.T) {
		f := fixture.New(t, fixture.WithObjects(newPod(nil)))
		f.PrependReactor("update", "pods", conflict)
		sync := process(newTestController(f))

		var got []fixture.Enqueued
		for range maxRetries + 1 {
			res := fixture.Sync(f, sync, "default/web")
			res.AssertErr(isConflict)
			got = append(got, res.Enqueued...)
		}

		// The default controller rate limiter backs off exponentially
		// from 5ms; after five requeues the key is forgotten.
		want := []fixture.Enqueued{
			{Op: fixture.OpAddRateLimited, Key: "default/web", After: 5 * time.Millisecond},
			{Op: fixture.OpAddRateLimited, Key: "default/web", After: 10 * time.Millisecond},
			{Op: fixture.OpAddRateLimited, Key: "default/web", After: 20 * time.Millisecond},
			{Op: fixture.OpAddRateLimited, Key: "default/web", After: 40 * time.Millisecond},
			{Op: fixture.OpAddRateLimited, Key: "default/web", After: 80 * time.Millisecond},
			{Op: fixture.OpForget, Key: "default/web"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("work queue (-want +got):\n%s", diff)
		}
	})

	t.Run("forgets the key after a successful sync", func(t *testing.T) {
		f := fixture.New(t, fixture.WithObjects(newPod(nil)))
		res := fixture.Sync(f, process(newTestController(f)), "default/web")
		res.AssertErr(nil)
		res.AssertEnqueued(fixture.Enqueued{Op: fixture.OpForget, Key: "default/web"})
	})
}
