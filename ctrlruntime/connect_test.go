package ctrlruntime_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/ctrlruntime"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
	"github.com/ctrltest/ctrltest/tbtest"
)

// counter writes into a Deployment's status.replicas the number of
// ConfigMaps it controls, as its cache shows them (fixture's keeper{count}
// as a Reconciler). Each flag is one way to get it wrong.
type counter struct {
	c client.Client
	// specOnly re-queues a Deployment on an update only when its spec
	// changed, as many reconcilers filter updates (a change of metadata or
	// status re-queues nothing); ignoresConfigMaps does not watch the
	// ConfigMaps it controls (Owns); swallow returns nil when the status
	// write fails; metadataOnly watches the ConfigMaps' metadata alone
	// (builder.OnlyMetadata).
	specOnly, ignoresConfigMaps, swallow, metadataOnly bool
}

func (r *counter) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var d appsv1.Deployment
	if err := r.c.Get(ctx, req.NamespacedName, &d); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	var cms corev1.ConfigMapList
	if err := r.c.List(ctx, &cms, client.InNamespace(d.Namespace)); err != nil {
		return reconcile.Result{}, err
	}
	var n int32
	for _, cm := range cms.Items {
		if ref := metav1.GetControllerOf(&cm); ref != nil && ref.UID == d.UID {
			n++
		}
	}
	if d.Status.Replicas == n {
		return reconcile.Result{}, nil
	}
	d.Status.Replicas = n
	if err := r.c.Status().Update(ctx, &d); err != nil && !r.swallow {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}

// specChanged passes the updates that change a Deployment's spec (a
// Deployment's generation also moves on annotation changes, so
// GenerationChangedPredicate would let the other writer's through).
var specChanged = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	return !equality.Semantic.DeepEqual(e.ObjectOld.(*appsv1.Deployment).Spec, e.ObjectNew.(*appsv1.Deployment).Spec)
}}

func (r *counter) SetupWithManager(mgr ctrl.Manager) error {
	var opts []builder.ForOption
	if r.specOnly {
		opts = append(opts, builder.WithPredicates(specChanged))
	}
	b := ctrl.NewControllerManagedBy(mgr).For(&appsv1.Deployment{}, opts...)
	switch {
	case r.metadataOnly:
		b = b.Owns(&corev1.ConfigMap{}, builder.OnlyMetadata)
	case !r.ignoresConfigMaps:
		b = b.Owns(&corev1.ConfigMap{})
	}
	return b.Complete(r)
}

// counterTable wires config, set up with env.Manager when setup is true.
func counterTable(config counter, setup bool) fixture.Table[string] {
	return fixture.Table[string]{Wire: ctrlruntime.Wire(func(env *ctrlruntime.Env) reconcile.Reconciler {
		r := config
		r.c = env.Client
		if setup {
			if err := r.SetupWithManager(env.Manager); err != nil {
				env.F.T().Fatal(err)
			}
		}
		return &r
	})}
}

// countedRow: a Deployment controlling one ConfigMap, its status counting
// none.
func countedRow() fixture.Row {
	d := deploy("web", 1, nil)
	d.UID = "web-uid"
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-cm",
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}}}
	counted := d.DeepCopy()
	counted.Status.Replicas = 1
	return fixture.Row{Name: "counts", Objects: []runtime.Object{d, cm}, Key: "default/web",
		WantActions: []actions.Action{actions.UpdateStatus(counted)}}
}

// damageOf lists a cache report's damage as "lag: kind after sync N".
func damageOf(r *records.CacheReport) []string {
	var out []string
	for _, o := range r.Damaged() {
		for _, d := range o.Damage {
			out = append(out, fmt.Sprintf("%s: %s after sync %d", o.Lag, d.Kind, d.Step))
		}
	}
	return out
}

// TestWireConnectsTheWatches: the watches SetupWithManager declares on
// env.Manager are the fixture's event handlers, so the stale-cache sweep
// judges recovery and the event-order sweep judges keys; without
// SetupWithManager both say they could not.
func TestWireConnectsTheWatches(t *testing.T) {
	row := countedRow()
	for _, setup := range []bool{true, false} {
		t.Run(fmt.Sprintf("set up %v", setup), func(t *testing.T) {
			tb := counterTable(counter{}, setup)
			cr := tb.CacheSweep(t, row)
			if d := damageOf(cr); len(d) > 0 {
				t.Errorf("the correct counter is damaged: %v\n%s", d, cr)
			}
			er := tb.EventSweep(t, row)
			if len(er.Failed()) > 0 {
				t.Errorf("the correct counter's handlers failed:\n%s", er)
			}
			var unjudged []string
			for _, o := range cr.Lags {
				if o.Skipped == "" && o.Unjudged != "" {
					unjudged = append(unjudged, o.Lag+": "+o.Unjudged)
				}
			}
			if setup {
				if len(unjudged) > 0 || er.Unjudged != "" {
					t.Errorf("set up with env.Manager, the sweeps judged nothing: %v; event orders: %q\n%s\n%s", unjudged, er.Unjudged, cr, er)
				}
				return
			}
			if len(unjudged) == 0 || !strings.Contains(er.Unjudged, "no event handler") {
				t.Errorf("without SetupWithManager the sweeps claim to judge: cache %v, event orders %q", unjudged, er.Unjudged)
			}
		})
	}
}

// TestWireConnectsTheKeys: the handlers' requests reach the fixture's
// queue spy as keys, filtered by the predicates, in the order the sources
// were declared; the row's result keeps only the reconcile's own.
func TestWireConnectsTheKeys(t *testing.T) {
	row := countedRow()
	for _, metadataOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("metadata only %v", metadataOnly), func(t *testing.T) {
			tb := counterTable(counter{specOnly: true, metadataOnly: metadataOnly}, true)
			res := tb.RunRow(t, row)
			if len(res.Enqueued) != 0 {
				t.Errorf("the reconcile's own queue records: %v; want none (a Reconciler has no queue)", res.Enqueued)
			}
			f := fixture.New(t, fixture.WithObjects(row.Objects...))
			sync := tb.Wire(f)
			// The initial list, before the first reconcile: the Deployment
			// (For) and its ConfigMap (Owns).
			want := []records.QueueOp{records.Added("default/web"), records.Added("default/web")}
			if d := cmp.Diff(want, f.QueueOps()); d != "" {
				t.Errorf("keys the initial list enqueued (-want +got):\n%s", d)
			}
			_ = fixture.Sync(f, sync, "default/web") // a status write: the spec is the same
			f.Refresh()
			if got := f.QueueOps()[len(want):]; len(got) != 0 {
				t.Errorf("a status write enqueued %v; want nothing (the predicate filters it out)", got)
			}
			cm := row.Objects[1].(*corev1.ConfigMap).DeepCopy()
			cm.Name = "web-cm-2"
			if err := direct(f).Create(t.Context(), cm); err != nil {
				t.Fatal(err)
			}
			f.Refresh()
			if d := cmp.Diff([]records.QueueOp{records.Added("default/web")}, f.QueueOps()[len(want):]); d != "" {
				t.Errorf("a new ConfigMap it controls enqueued (-want +got):\n%s", d)
			}
		})
	}
}

// direct is a client of f's world.
func direct(f *fixture.Fixture) client.Client { return ctrlruntime.NewClient(f) }

// TestCacheSweepFindsASwallowedConflict: a Reconciler that swallows the
// conflict of its status write, and whose predicates filter out the event
// that would re-queue it, never recovers from the other writer's lag.
func TestCacheSweepFindsASwallowedConflict(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    counter
		want []string
	}{
		// The other writer's annotation conflicts the status write, which
		// is swallowed; its update event changes no generation and no
		// ConfigMap event comes: the status stays wrong.
		{"swallows a conflict nothing re-queues", counter{specOnly: true, ignoresConfigMaps: true, swallow: true}, []string{"other-writer: wrong status after sync 1"}},
		// The error returned: the worker retries it.
		{"returns the conflict", counter{specOnly: true, ignoresConfigMaps: true}, nil},
		// Without the predicate the annotation's event re-queues it.
		{"swallows, every update re-queues", counter{ignoresConfigMaps: true, swallow: true}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			report := counterTable(tt.c, true).CacheSweep(t, countedRow())
			if d := cmp.Diff(tt.want, damageOf(report)); d != "" {
				t.Errorf("damage (-want +got):\n%s\n%s", d, report)
			}
		})
	}
}

// TestWireConnectsOnce: a manager's sources start once; Watches after Wire
// connected them fails, naming who started them.
func TestWireConnectsOnce(t *testing.T) {
	rec := tbtest.Run(t, func(t testing.TB) {
		f := fixture.New(t, fixture.WithObjects(countedRow().Objects...))
		var env *ctrlruntime.Env
		ctrlruntime.Wire(func(e *ctrlruntime.Env) reconcile.Reconciler {
			env = e
			r := &counter{c: e.Client}
			if err := r.SetupWithManager(e.Manager); err != nil {
				t.Fatal(err)
			}
			return r
		})(f)
		env.Manager.Watches(t)
	})
	if !strings.Contains(rec.String(), "started already (by Wire)") {
		t.Errorf("Watches after Wire: %q; want a failure saying Wire started the sources", rec)
	}
}

// TestWireConnectsRunningInformers: with fixture.WithInformers the
// handlers run on the informers' goroutines, and their keys reach the spy.
func TestWireConnectsRunningInformers(t *testing.T) {
	f := fixture.New(t, fixture.WithInformers(), fixture.WithObjects(countedRow().Objects...))
	sync := counterTable(counter{}, true).Wire(f)
	// The initial list: the Deployment (For), its ConfigMap (Owns).
	f.AwaitEnqueued(records.Added("default/web"), records.Added("default/web"))
	if res := fixture.Sync(f, sync, "default/web"); res.Err != nil {
		t.Fatal(res.Err)
	}
	f.AwaitEnqueued(records.Added("default/web")) // the status write's update event (For)
}
