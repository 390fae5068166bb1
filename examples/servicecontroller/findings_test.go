package servicecontroller

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	fakecloud "k8s.io/cloud-provider/fake"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
	"github.com/ctrltest/ctrltest/records"
)

// TestInvalidKey is upstream's TestSyncService "if an invalid service name
// is synced". fixture.Sync refuses a key with two slashes before the
// controller sees it, so no row can hold it: the sync handler is called
// directly, on a fixture of its own.
func TestInvalidKey(t *testing.T) {
	f := fixture.New(t)
	sync := Wire(f)
	const want = `unexpected key format: "invalid/key/string"`
	if err := sync(f.Context(), "invalid/key/string"); err == nil || err.Error() != want {
		t.Errorf("sync of %q: %v; want %s", "invalid/key/string", err, want)
	}
}

// TestNodeRetry shows what the node rows' HandlesFault declares: when the
// cloud fails to update a load balancer's hosts, the node sync returns nil
// and puts the Service's key back on the Service queue.
func TestNodeRetry(t *testing.T) {
	s0 := newService("s0", corev1.ServiceTypeLoadBalancer, withFinalizer, ingress(ip))
	f := fixture.New(t, kube.Server(), fixture.WithObjects(s0, node1), Synced.Set([]*corev1.Service{s0}),
		Existing.Set([]fakecloud.Balancer{Balancer(s0)}), CloudErr.Set(ErrUnavailable))
	res := fixture.Sync(f, NodeSync(f, build(f)), "node-1")
	want := []records.Call{update("default/s0", "[node-1]"), get("default/s0")}
	if res.Err != nil || !slices.Equal(callStrings(res.Calls), callStrings(want)) ||
		len(res.Enqueued) != 1 || res.Enqueued[0].Queue != "" || res.Enqueued[0].Op != "add" || res.Enqueued[0].Key != "default/s0" {
		t.Errorf("node sync with a failing cloud: want no error, the calls %v and the Service's key added to the Service queue; got\n%s", want, res)
	}
}

func callStrings(calls []records.Call) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.String()
	}
	return out
}

// TestNilIPWithoutServer: without kube.Server() the row "a cloud without
// an external IP" passes silently, as upstream's rows do (their fake cloud
// has no ExternalIP either): the store accepts the ingress IP "<nil>".
// The table's row, on kube.Server(), gets kube-apiserver's 422.
func TestNilIPWithoutServer(t *testing.T) {
	svc := newService("basic-service1", corev1.ServiceTypeLoadBalancer)
	f := fixture.New(t, fixture.WithObjects(svc, node1), ExternalIP.Set(nil))
	if res := fixture.Sync(f, Wire(f), "default/basic-service1"); res.Err != nil {
		t.Errorf("without kube.Server(): %v; want the status with ip \"<nil>\" accepted", res.Err)
	}
	got := f.Object(svc).(*corev1.Service).Status.LoadBalancer.Ingress
	if len(got) != 1 || got[0].IP != "<nil>" {
		t.Errorf("without kube.Server() the ingress is %+v; want ip \"<nil>\"", got)
	}
}
