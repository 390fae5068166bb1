package checks

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

// The stale-cache sweep's examples: Canary, Tagger, Reaper and Census, each with a
// table of the Correct controller swept (Checks.CacheSweep: the part to copy)
// and a test that sweeps both variants and reads the report.

func canary(v Variant) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		inf := f.KubeInformers()
		return NewCanary(f.Kube(), inf.Apps().V1().Deployments(), inf.Core().V1().Pods(), v).Sync
	}
}

var canaryRow = fixture.Row{
	Name:        "makes the canary Pod of a Deployment",
	Objects:     []runtime.Object{deployment(1)},
	Key:         "default/web",
	WantActions: []actions.Action{actions.Create(canaryPod(deployment(1)))},
}

// TestCanary is ordinary table testing with the stale-cache sweep on: the
// row runs as usual, then once per lag, and fails if a lag makes the
// controller do damage.
func TestCanary(t *testing.T) {
	fixture.Table[string]{
		Wire:   canary(Correct),
		Checks: fixture.Checks{CacheSweep: fixture.On},
		Rows: []fixture.Row{canaryRow, {
			Name:    "leaves a Deployment with its canary alone",
			Objects: []runtime.Object{deployment(1), canaryPod(deployment(1))},
			Key:     "default/web",
		}},
	}.Run(t)
}

func tagger(v Variant) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		return NewTagger(f.Kube(), f.KubeInformers().Apps().V1().Deployments(), v).Sync
	}
}

func tagged(tier string) runtime.Object {
	d := deployment(1)
	d.Labels = map[string]string{TierLabel: tier}
	return d
}

var taggerRow = fixture.Row{
	Name:        "labels a small Deployment",
	Objects:     []runtime.Object{deployment(1)},
	Key:         "default/web",
	WantActions: []actions.Action{actions.Update(tagged("small"))},
}

// TestTagger: the Correct Tagger passes the sweep.
func TestTagger(t *testing.T) {
	fixture.Table[string]{
		Wire:   tagger(Correct),
		Checks: fixture.Checks{CacheSweep: fixture.On},
		Rows:   []fixture.Row{taggerRow},
	}.Run(t)
}

func reaper(v Variant) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		inf := f.KubeInformers()
		return NewReaper(f.Kube(), inf.Apps().V1().Deployments(), inf.Core().V1().Pods(), v).Sync
	}
}

// worker is a worker Pod of the Deployment web.
func worker(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{WorkerOfLabel: "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "worker", Image: "busybox:1.37"}}},
	}
}

var reaperRow = fixture.Row{
	Name:    "keeps the workers of a Deployment",
	Objects: []runtime.Object{deployment(1), worker("web-worker")},
	Key:     "default/web",
}

// TestReaper: the Correct Reaper passes the sweep.
func TestReaper(t *testing.T) {
	fixture.Table[string]{
		Wire:   reaper(Correct),
		Checks: fixture.Checks{CacheSweep: fixture.On},
		Rows: []fixture.Row{reaperRow, {
			Name:        "deletes the workers of a deleted Deployment",
			Objects:     []runtime.Object{worker("web-worker"), fixture.Absent(deployment(1))},
			Key:         "default/web",
			WantReads:   []actions.Action{actions.Get(deployment(1))},
			WantActions: []actions.Action{actions.Delete(worker("web-worker"))},
		}},
	}.Run(t)
}

func census(v Variant) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		inf := f.KubeInformers()
		c, err := NewCensus(f.Kube(), inf.Apps().V1().Deployments(), inf.Core().V1().Pods(), fixture.Queue[string](f), v)
		if err != nil {
			f.T().Fatal(err)
		}
		return c.Sync
	}
}

var censusRow = fixture.Row{
	Name:        "makes the worker of a Deployment",
	Objects:     []runtime.Object{deployment(1)},
	Key:         "default/web",
	WantActions: []actions.Action{actions.Create(worker("web-worker"))},
}

// TestCensus: the Correct Census passes the sweep; its idempotency check
// counts the worker its first sync made (the worker's add event enqueues
// the Deployment).
func TestCensus(t *testing.T) {
	fixture.Table[string]{
		Wire:   census(Correct),
		Checks: fixture.Checks{CacheSweep: fixture.On},
		Rows:   []fixture.Row{censusRow},
	}.Run(t)
}

// TestStaleCacheDamageIsCaught sweeps both variants of each controller and
// reads the report: each Broken controller does one kind of damage under
// one lag; the Correct ones do none.
func TestStaleCacheDamageIsCaught(t *testing.T) {
	for _, tt := range []struct {
		name string
		wire func(Variant) func(f *fixture.Fixture) fixture.SyncFunc[string]
		row  fixture.Row
		// want is the broken variant's damage: "lag: kind"; the text of
		// each must contain the wording at its index.
		want, wording []string
	}{
		{"Canary", canary, canaryRow, []string{"own-writes: duplicate"}, []string{"2 pods in default are controlled by Deployment web"}},
		{"Tagger", tagger, taggerRow, []string{"other-writer: lost update", "other-writer-field: lost update"},
			[]string{"lost the annotation, label and finalizer ctrltest.dev/other-writer", "lost the spec.replicas value 2 another writer had set"}},
		{"Reaper", reaper, reaperRow, []string{"not-in-cache: lost object"}, []string{"pods default/web-worker was deleted"}},
		{"Census", census, censusRow, []string{"own-writes: wrong status", "not-in-cache: wrong status"},
			[]string{"deployments default/web settled with another status than without the lag, and never recovers", "deployments default/web settled with another status than without the lag, and never recovers"}},
	} {
		for _, v := range []Variant{Correct, Broken} {
			t.Run(tt.name+"/"+v.String(), func(t *testing.T) {
				report := fixture.Table[string]{Wire: tt.wire(v)}.CacheSweep(t, tt.row)
				var got []string
				for _, o := range report.Damaged() {
					for _, d := range o.Damage {
						if i := len(got); i < len(tt.wording) && !strings.Contains(d.Text, tt.wording[i]) {
							t.Errorf("damage %q does not contain %q", d.Text, tt.wording[i])
						}
						got = append(got, o.Lag+": "+d.Kind)
					}
				}
				var want []string
				if v == Broken {
					want = tt.want
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("damage (-want +got):\n%s\n%s", d, report)
				}
				t.Logf("%s", report)
			})
		}
	}
}
