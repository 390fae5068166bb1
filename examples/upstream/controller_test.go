package upstream

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/actions"
	ct "github.com/ctrltest/ctrltest/fixture" // an alias: upstream test files often declare their own `type fixture`
	"github.com/ctrltest/ctrltest/records"
	"github.com/ctrltest/ctrltest/tbtest"
)

// wire builds the controller exactly as main would, on the fixture's
// clientset and informer factory, and shuts down the queue and broadcaster
// its constructor made when the test ends. The sync handler is unexported:
// this test is in the controller's package.
func wire(f *ct.Fixture) ct.SyncFunc[string] {
	c := NewController(f.Context(), f.Kube(), f.KubeInformers().Core().V1().ConfigMaps())
	f.T().Cleanup(c.Shutdown)
	return c.syncHandler
}

func configMap(namespace, name string, annotations, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Annotations: annotations},
		Data:       data,
	}
}

var (
	source = configMap("default", "settings", map[string]string{MirrorAnnotation: "prod"}, map[string]string{"mode": "fast"})
	copied = configMap("prod", "settings", map[string]string{SourceAnnotation: "default/settings"}, map[string]string{"mode": "fast"})
	stale  = configMap("prod", "settings", map[string]string{SourceAnnotation: "default/settings"}, map[string]string{"mode": "slow"})
	theirs = configMap("prod", "settings", nil, map[string]string{"owner": "someone else"})
)

func TestController(t *testing.T) {
	getCopy := actions.Get(copied)
	ct.Table[string]{
		Wire:     wire,
		Parallel: true,
		Rows: []ct.Row{{
			Name:        "creates the copy",
			Objects:     []runtime.Object{source},
			Key:         "default/settings",
			WantReads:   []actions.Action{getCopy},
			WantActions: []actions.Action{actions.Create(copied)},
			WantEvents:  []records.Event{ct.NewEvent(source, corev1.EventTypeNormal, ReasonMirrored, "Copied to prod/settings")},
			Checks:      ct.Checks{FaultSweep: ct.On}, // each write fails once: the sync must return the error
		}, {
			Name:        "updates a stale copy",
			Objects:     []runtime.Object{source, stale},
			Key:         "default/settings",
			WantReads:   []actions.Action{getCopy},
			WantActions: []actions.Action{actions.Update(copied)},
			WantEvents:  []records.Event{ct.NewEvent(source, corev1.EventTypeNormal, ReasonMirrored, "Updated prod/settings")},
			Checks:      ct.Checks{FaultSweep: ct.On},
		}, {
			Name:      "leaves an up-to-date copy alone",
			Objects:   []runtime.Object{source, copied},
			Key:       "default/settings",
			WantReads: []actions.Action{getCopy},
		}, {
			Name:       "does not overwrite a ConfigMap it did not copy",
			Objects:    []runtime.Object{source, theirs},
			Key:        "default/settings",
			WantReads:  []actions.Action{getCopy},
			WantEvents: []records.Event{ct.NewEvent(source, corev1.EventTypeWarning, ReasonNotOurs, "prod/settings exists and is not a copy of default/settings")},
		}, {
			Name:      "ignores a ConfigMap without the annotation",
			Objects:   []runtime.Object{configMap("default", "plain", nil, nil)},
			Key:       "default/plain",
			WantReads: []actions.Action{},
		}},
	}.Run(t)
}

// TestEventsOnePerCall shows that the broadcaster's own deduplication
// (client-go patches the count of a repeated event) does not hide events:
// each sync's result has the events of that sync, one per Eventf.
func TestEventsOnePerCall(t *testing.T) {
	f := ct.New(t, ct.WithObjects(source, theirs))
	sync := wire(f)
	want := ct.NewEvent(source, corev1.EventTypeWarning, ReasonNotOurs, "prod/settings exists and is not a copy of default/settings")
	for range 3 {
		res := ct.Sync(f, sync, "default/settings")
		res.AssertEvents(want)
		res.AssertActions(nil) // the event writes (a create, then patches) are not writes of the controller
	}
	if got := len(f.Events()); got != 3 {
		t.Errorf("the fixture holds %d events, want 3", got)
	}
}

// TestLeakCheckCatchesForgottenShutdown runs a test that forgets to shut
// down the work queue the constructor made, on a recording testing.TB, and
// checks that the fixture's leak check fails it with the fix.
func TestLeakCheckCatchesForgottenShutdown(t *testing.T) {
	var c *Controller
	rec := tbtest.Run(t, func(t testing.TB) {
		f := ct.New(t, ct.WithObjects(source), ct.WithTimeout(time.Second)) // waits at most 1s for goroutines to exit
		c = NewController(f.Context(), f.Kube(), f.KubeInformers().Core().V1().ConfigMaps())
		// Missing: t.Cleanup(c.Shutdown)
		ct.Sync(f, c.syncHandler, "default/settings")
	})
	c.Shutdown() // what the test forgot, so that this test leaks nothing itself
	if !rec.Failed() {
		t.Fatal("the leak check did not fail the test that forgot to shut down the queue")
	}
	out := rec.String()
	for _, want := range []string{
		"goroutine(s) the test started are still running after its cleanup",
		"k8s.io/client-go/util/workqueue.(*delayingType[...]).waitingLoop",
		"a work queue that nothing shut down",
		"fixture.Checks{Leaks: fixture.Off}",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the leak report lacks %q:\n%s", want, out)
		}
	}
	t.Logf("caught, as intended:\n%s", out)
}
