package servicecontroller

import (
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
// broadcaster and recorder (recording to the fixture's clientset). The
// Service queue New made is swapped for the fixture's spy; the Node queue
// is shut down (a Service key's sync never uses it).
func Wire(f *fixture.Fixture) fixture.SyncFunc[string] {
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
	(*reach.NodeQueue.Of(t, c)).ShutDown()

	for _, svc := range Synced.Get(f) {
		key, _ := cache.MetaNamespaceKeyFunc(svc)
		reach.Cached(t, c, key, svc.DeepCopy())
	}
	return reach.Sync(c)
}
