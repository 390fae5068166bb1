package kcm

import (
	"context"
	"testing"
	"time"

	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/kubernetes/pkg/controller/cronjob"
	"k8s.io/kubernetes/pkg/controller/daemon"
	"k8s.io/kubernetes/pkg/controller/deployment"
	"k8s.io/kubernetes/pkg/controller/job"
	"k8s.io/kubernetes/pkg/controller/replicaset"
	"k8s.io/kubernetes/pkg/controller/statefulset"

	"github.com/ctrltest/ctrltest/examples/kcm/internal/reach"
	"github.com/ctrltest/ctrltest/fixture"
)

// startRecording starts the broadcaster's recording to the fixture's kube
// clientset, as the controller's Run does (its constructor only makes
// the broadcaster), and shuts it down when the test ends.
func startRecording(f *fixture.Fixture, b record.EventBroadcaster) {
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: f.Kube().CoreV1().Events("")})
	f.T().Cleanup(b.Shutdown)
}

// swapQueue shuts down the queue the constructor made and puts the
// fixture's spy (fixture.Queue) in its place: what the sync and the event
// handlers enqueue is recorded.
func swapQueue(f *fixture.Fixture, q *reach.Queue) {
	(*q).ShutDown()
	*q = fixture.Queue[string](f)
}

// check fails t at once on a constructor's error.
func check(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Deployment builds the DeploymentController as kube-controller-manager
// does (NewDeploymentController, on the fixture's clientset and informer
// factory) and returns its sync handler (dc.syncHandler, that is
// dc.syncDeployment).
func Deployment(f *fixture.Fixture) fixture.SyncFunc[string] {
	t, inf := f.T(), f.KubeInformers()
	dc, err := deployment.NewDeploymentController(f.Context(), inf.Apps().V1().Deployments(), inf.Apps().V1().ReplicaSets(), inf.Core().V1().Pods(), f.Kube())
	check(t, err)
	startRecording(f, *reach.DeploymentBroadcaster.Of(t, dc))
	swapQueue(f, reach.DeploymentQueue.Of(t, dc))
	return *reach.DeploymentSync.Of(t, dc)
}

// StatefulSet builds the StatefulSetController as kube-controller-manager
// does and returns its sync method (ssc.sync). Its clock is the fixture's.
func StatefulSet(f *fixture.Fixture) fixture.SyncFunc[string] {
	t, inf := f.T(), f.KubeInformers()
	ssc := statefulset.NewStatefulSetController(f.Context(), inf.Core().V1().Pods(), inf.Apps().V1().StatefulSets(),
		inf.Core().V1().PersistentVolumeClaims(), inf.Apps().V1().ControllerRevisions(), f.Kube())
	startRecording(f, *reach.StatefulSetBroadcaster.Of(t, ssc))
	swapQueue(f, reach.StatefulSetQueue.Of(t, ssc))
	*reach.StatefulSetClock.Of(t, ssc) = f.Clock()
	return reach.StatefulSetSync(ssc)
}

// DaemonSet builds the DaemonSetsController as kube-controller-manager does
// (with its failed-pods backoff of 1s to 15m) and returns its sync handler
// (dsc.syncHandler, that is dsc.syncDaemonSet). The queue of node updates
// is shut down: a sync never uses it.
func DaemonSet(f *fixture.Fixture) fixture.SyncFunc[string] {
	dsc := newDaemonSetsController(f)
	return *reach.DaemonSetSync.Of(f.T(), dsc)
}

func newDaemonSetsController(f *fixture.Fixture) *daemon.DaemonSetsController {
	t, inf := f.T(), f.KubeInformers()
	dsc, err := daemon.NewDaemonSetsController(f.Context(), inf.Apps().V1().DaemonSets(), inf.Apps().V1().ControllerRevisions(),
		inf.Core().V1().Pods(), inf.Core().V1().Nodes(), f.Kube(), flowcontrol.NewBackOff(1*time.Second, 15*time.Minute))
	check(t, err)
	startRecording(f, *reach.DaemonSetBroadcaster.Of(t, dsc))
	swapQueue(f, reach.DaemonSetQueue.Of(t, dsc))
	(*reach.DaemonSetNodeUpdateQueue.Of(t, dsc)).ShutDown()
	return dsc
}

// ReplicaSet returns the wiring of the ReplicaSet controller as
// kube-controller-manager builds it (NewReplicaSetController) with burst as
// its burstReplicas (kube-controller-manager's is 500): after creating or
// deleting that many pods a sync waits for the informer to show them
// (its expectations) before the next batch. The wiring returns its sync
// handler (rsc.syncHandler, that is rsc.syncReplicaSet).
func ReplicaSet(burst int) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		t, inf := f.T(), f.KubeInformers()
		rsc := replicaset.NewReplicaSetController(f.Context(), inf.Apps().V1().ReplicaSets(), inf.Core().V1().Pods(), f.Kube(), burst)
		startRecording(f, *reach.ReplicaSetBroadcaster.Of(t, rsc))
		swapQueue(f, reach.ReplicaSetQueue.Of(t, rsc))
		return *reach.ReplicaSetSync.Of(t, rsc)
	}
}

// Job builds the Job controller as kube-controller-manager does (no
// Workload or PodGroup informer: the WorkloadWithJob feature is off by
// default) and returns its sync handler (jm.syncHandler, that is
// jm.syncJob). Its clock is the fixture's; the queue of orphan pods is
// shut down (a sync of a Job key never uses it).
func Job(f *fixture.Fixture) fixture.SyncFunc[string] {
	t, inf := f.T(), f.KubeInformers()
	jm, err := job.NewController(f.Context(), f.Kube(), inf.Core().V1().Pods(), inf.Batch().V1().Jobs(), nil, nil)
	check(t, err)
	startRecording(f, *reach.JobBroadcaster.Of(t, jm))
	swapQueue(f, reach.JobQueue.Of(t, jm))
	reach.JobOrphanQueue.ShutDown(t, jm)
	*reach.JobClock.Of(t, jm) = f.Clock()
	return *reach.JobSync.Of(t, jm)
}

// CronJob builds the CronJob controller as kube-controller-manager does
// (NewControllerV2), with the fixture's clock as its now, and returns its
// sync method (jm.sync) as a sync handler: when the sync asks to be run
// again after a delay, the handler adds the key to the queue after that
// delay, as the controller's worker does (so the row sees it among the
// queue records).
func CronJob(f *fixture.Fixture) fixture.SyncFunc[string] {
	t, inf := f.T(), f.KubeInformers()
	jm, err := cronjob.NewControllerV2(f.Context(), inf.Batch().V1().Jobs(), inf.Batch().V1().CronJobs(), f.Kube())
	check(t, err)
	startRecording(f, *reach.CronJobBroadcaster.Of(t, jm))
	q := reach.CronJobQueue.Of(t, jm)
	swapQueue(f, q)
	*reach.CronJobNow.Of(t, jm) = f.Clock().Now
	sync := reach.CronJobSync(jm)
	return func(ctx context.Context, key string) error {
		after, err := sync(ctx, key)
		if err == nil && after != nil {
			(*q).AddAfter(key, *after)
		}
		return err
	}
}
