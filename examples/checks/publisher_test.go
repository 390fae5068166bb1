package checks

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

// The event-order sweep's example: the Publisher, with a table of the
// Correct controller swept (Checks.EventSweep: the part to copy) and a test
// that sweeps both variants and reads the report.

func publisher(v Variant) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		inf := f.KubeInformers()
		c, err := NewPublisher(f.Kube(), inf.Apps().V1().Deployments(), inf.Core().V1().ConfigMaps(), fixture.Queue[string](f), v)
		if err != nil {
			f.T().Fatal(err)
		}
		return c.Sync
	}
}

// published is the ConfigMap the Publisher keeps for the Deployment web
// (image nginx:1.29), with other images and under another name when given.
func published(name, image string) *corev1.ConfigMap {
	cm := PublishedConfigMap(deployment(1))
	cm.UID = types.UID("uid-" + name)
	if image != "" {
		cm.Data["images"] = "web=" + image
	}
	if name != "" {
		cm.Name = name
	}
	return cm
}

// republishRow's sync deletes an old ConfigMap and replaces the stale one.
var republishRow = fixture.Row{
	Name:    "replaces stale images and deletes an old ConfigMap",
	Objects: []runtime.Object{deployment(1), published("", "nginx:1.28"), published("web-old-images", "")},
	Key:     "default/web",
	WantActions: []actions.Action{
		actions.Delete(published("", "nginx:1.28")),
		actions.Delete(published("web-old-images", "")),
		actions.Create(PublishedConfigMap(deployment(1))),
	},
}

// TestPublisher is ordinary table testing with the event-order sweep on:
// the row runs as usual, then with its changes delivered coalesced,
// relisted and resynced, and fails if the handlers enqueue other keys.
func TestPublisher(t *testing.T) {
	fixture.Table[string]{
		Wire:   publisher(Correct),
		Checks: fixture.Checks{EventSweep: fixture.On},
		Rows: []fixture.Row{republishRow, {
			Name:        "publishes the images of a new Deployment",
			Objects:     []runtime.Object{deployment(1)},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Create(PublishedConfigMap(deployment(1)))},
		}},
	}.Run(t)
}

// TestEventOrderFailuresAreCaught sweeps both variants of the Publisher
// and reads the report: the Broken one loses the key of a replaced
// ConfigMap's Deployment when the replace arrives as one update, and
// panics on a tombstone.
func TestEventOrderFailuresAreCaught(t *testing.T) {
	for _, v := range []Variant{Correct, Broken} {
		t.Run(v.String(), func(t *testing.T) {
			report := fixture.Table[string]{Wire: publisher(v)}.EventSweep(t, republishRow)
			var got []string
			for _, o := range report.Failed() {
				for _, m := range o.Mismatches {
					got = append(got, o.Variant+": "+m.Object+" lost "+strings.Join(m.Missing, ", "))
				}
				if o.Panic != "" {
					got = append(got, o.Variant+": panic")
				}
			}
			var want []string
			if v == Broken {
				want = []string{
					"coalesced: configmaps default/web-images lost default/web",
					"relist: panic",
					"handlers: panic",
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("failures (-want +got):\n%s\n%s", d, report)
			}
			if v == Broken && !strings.Contains(report.String(), "panicked on a tombstone (relist) of tombstone default/web-old-images") {
				t.Errorf("the report does not name the tombstone:\n%s", report)
			}
			t.Logf("%s", report)
		})
	}
}
