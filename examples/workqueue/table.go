package workqueue

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
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

// Table is the sync handler's scenarios: TestSyncPod runs them on
// client-go's fakes, and the parity module's tests run them on a real API
// server too (all but the row with a reactor, which acts on the fakes
// only).
func Table() fixture.Table[string] {
	pod := newPod(map[string]string{"app": "web"})
	labelled := newPod(map[string]string{"app": "web", SeenLabel: "true"})

	return fixture.Table[string]{
		Wire: wire,
		Rows: []fixture.Row{{
			Name:        "labels a new pod",
			Objects:     []runtime.Object{pod},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Update(labelled)},
			WantEvents:  []records.Event{fixture.NewEvent(labelled, corev1.EventTypeNormal, ReasonSeen, MessageSeen)},
		}, {
			Name:    "leaves a labelled pod alone",
			Objects: []runtime.Object{labelled},
			Key:     "default/web",
		}, {
			Name:    "does nothing for a deleted pod",
			Objects: []runtime.Object{fixture.Absent(newPod(nil))},
			Key:     "default/web",
		}, {
			Name:    "returns the conflict of a failed update",
			Objects: []runtime.Object{pod},
			Key:     "default/web",
			Options: []fixture.Option{fixture.WithReactor("update", "pods", conflict)},
			// The update was attempted (and recorded), but no event
			// claims success.
			WantActions: []actions.Action{actions.Update(labelled)},
			WantErr:     isConflict,
		}},
	}
}
