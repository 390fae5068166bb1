package servicecontroller

import (
	"context"
	"net"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/cloud-provider/controllers/service"
	fakecloud "k8s.io/cloud-provider/fake"
	"k8s.io/component-base/featuregate"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/examples/servicecontroller/internal/reach"
	"github.com/ctrltest/ctrltest/fixture"
)

// ClusterName is the cluster name the controller is built with.
const ClusterName = "test-cluster"

// NodeQueue names the controller's queue of Node keys (fixture.QueueNamed):
// a row with Queue: NodeQueue syncs a Node key with the controller's node
// sync. The Service queue is the fixture's unnamed Queue.
const NodeQueue = "nodes"

// The row parameters: the fake cloud's state and the controller's memory,
// set in a row's Options (fixture.Param), read by Wire.
var (
	// ExternalIP is the ingress IP the fake cloud gives load balancers;
	// nil is the fake's own default, which it renders "<nil>".
	ExternalIP = fixture.NewParam("external IP", net.ParseIP("203.0.113.10"))
	// IPMode is the ingress IP mode the fake cloud gives load balancers:
	// VIP, as kube-apiserver defaults it (nil is the fake's own default).
	IPMode = fixture.NewParam("ingress IP mode", ptr.To(corev1.LoadBalancerIPModeVIP))
	// Existing are the load balancers the cloud holds before the sync
	// (upstream's lbExists; see Balancer).
	Existing = fixture.NewParam[[]fakecloud.Balancer]("existing load balancers", nil)
	// CloudErr, when not nil, is the answer of every load-balancer call
	// (the fake's Err).
	CloudErr = fixture.NewParam[error]("cloud error", nil)
	// Synced are the Services the controller synced before (its cache):
	// what it remembers of a Service that is gone, or that came back with
	// another uid.
	Synced = fixture.NewParam[[]*corev1.Service]("services synced before", nil)
)

// Wire builds the service controller as the cloud-controller-manager does
// (service.New, on the fixture's kube clientset and its Service and Node
// informers) with the row's fake cloud, and returns its sync method
// (syncService). What its Run would add is added here: the event
// broadcaster and recorder (recording to the fixture's clientset), and
// the node worker's sync (syncNodes) as the handler of the Node queue.
// Both queues New made are swapped for the fixture's spies.
func Wire(f *fixture.Fixture) fixture.SyncFunc[string] {
	c := build(f)
	fixture.Handle(f, NodeQueue, NodeSync(f, c))
	return reach.Sync(c)
}

// build builds the controller on f, as Wire says, with the fixture's
// spies in place of its queues.
func build(f *fixture.Fixture) *service.Controller {
	t, inf := f.T(), f.KubeInformers()
	cloud := NewCloud(f, ExternalIP.Get(f), IPMode.Get(f), Existing.Get(f), CloudErr.Get(f))
	c, err := service.New(cloud, f.Kube(), inf.Core().V1().Services(), inf.Core().V1().Nodes(), ClusterName, featuregate.NewFeatureGate())
	if err != nil {
		t.Fatal(err)
	}
	b := record.NewBroadcaster(record.WithContext(f.Context()))
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: f.Kube().CoreV1().Events("")})
	t.Cleanup(b.Shutdown)
	*reach.Broadcaster.Of(t, c) = b
	*reach.Recorder.Of(t, c) = b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "service-controller"})

	q := reach.ServiceQueue.Of(t, c)
	(*q).ShutDown()
	*q = fixture.Queue[string](f)
	q = reach.NodeQueue.Of(t, c)
	(*q).ShutDown()
	*q = fixture.QueueNamed[string](f, NodeQueue)

	for _, svc := range Synced.Get(f) {
		key, _ := cache.MetaNamespaceKeyFunc(svc)
		reach.Cached(t, c, key, svc.DeepCopy())
	}
	return c
}

// NodeSync is the sync handler of c's Node queue: what its node worker
// does for a key (processNextNodeItem), with one worker so that the
// calls come in the order of the controller's cache: syncNodes, then the
// Services whose load balancer failed to take the nodes go back on the
// Service queue (f's Queue).
func NodeSync(f *fixture.Fixture, c *service.Controller) fixture.SyncFunc[string] {
	services, syncNodes := fixture.Queue[string](f), reach.SyncNodes(c)
	return func(ctx context.Context, _ string) error {
		for _, key := range syncNodes(ctx, 1) {
			services.Add(key)
		}
		return nil
	}
}
