package servicecontroller

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	fakecloud "k8s.io/cloud-provider/fake"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
	"github.com/ctrltest/ctrltest/records"
)

// knownDamage is a stale-cache sweep finding a row declares: the lag,
// the kind of damage and a part of its text.
type knownDamage struct {
	lag, kind, text string
}

// knownFindings are the rows whose stale-cache sweep finds an upstream
// bug, with the finding. Each such row turns its sweep off in the table
// (fixture.Row has no field to declare an expected damage) and this test
// runs the sweep in its place, asserting exactly the declared damage: a
// fix upstream, or a new damage, fails here.
var knownFindings = map[string][]knownDamage{
	// kubernetes/kubernetes#111643: the finalizer removal by a patch from
	// the cached object removes another writer's finalizer.
	"service with finalizer that no longer wants LB": {{
		lag:  "other-writer",
		kind: "lost update",
		text: "lost the finalizer ctrltest.dev/other-writer another writer had set, which the cache did not show: patch (strategic) v1 services/status default/no-external-balancer removed it",
	}},
}

func TestKnownFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("the stale-cache sweep is not part of -short")
	}
	tb := Table()
	for name, want := range knownFindings {
		i := slices.IndexFunc(tb.Rows, func(r fixture.Row) bool { return r.Name == name })
		if i < 0 {
			t.Errorf("knownFindings names %q, which no row of the table has", name)
			continue
		}
		row := tb.Rows[i]
		if row.Checks.CacheSweep != fixture.Off {
			t.Errorf("row %q declares a known finding but runs its stale-cache sweep too", name)
		}
		t.Run(name, func(t *testing.T) {
			row.Checks.CacheSweep = fixture.Inherit
			report := tb.CacheSweep(t, row)
			var got []knownDamage
			for _, o := range report.Damaged() {
				for _, d := range o.Damage {
					got = append(got, knownDamage{lag: o.Lag, kind: d.Kind, text: d.Text})
				}
			}
			matched := len(got) == len(want)
			for j := 0; matched && j < len(got); j++ {
				matched = got[j].lag == want[j].lag && got[j].kind == want[j].kind && strings.Contains(got[j].text, want[j].text)
			}
			if !matched {
				t.Errorf("the stale-cache sweep no longer finds exactly the declared damage %+v (fixed upstream? then drop the declaration and turn the row's sweep back on):\n%s", want, report)
			}
		})
	}
}

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
