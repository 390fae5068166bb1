package ctrlruntime_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/ctrlruntime"
	webappv1 "github.com/ctrltest/ctrltest/ctrlruntime/examples/webapp/api/v1"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
	"github.com/ctrltest/ctrltest/tbtest"
)

// scaler sets a Deployment's replicas to 3 and asks to be requeued.
type scaler struct{ c client.Client }

func (s scaler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var d appsv1.Deployment
	if err := s.c.Get(ctx, req.NamespacedName, &d); err != nil {
		return reconcile.Result{}, err
	}
	if *d.Spec.Replicas == 3 {
		return reconcile.Result{RequeueAfter: time.Minute}, nil
	}
	d.Spec.Replicas = new(int32(3))
	return reconcile.Result{RequeueAfter: time.Minute}, s.c.Update(ctx, &d)
}

func TestCachedClient(t *testing.T) {
	f := fixture.New(t, fixture.WithObjects(deploy("web", 1, map[string]string{"app": "web"})))
	c := ctrlruntime.NewClient(f, ctrlruntime.Cached())
	key := client.ObjectKey{Namespace: "default", Name: "web"}
	res := fixture.Sync(f, func(ctx context.Context, _ string) error {
		var d appsv1.Deployment
		if err := c.Get(ctx, key, &d); err != nil {
			return err
		}
		d.Labels["app"] = "changed" // a deep copy: the cache is not changed
		var again appsv1.Deployment
		if err := c.Get(ctx, key, &again); err != nil {
			return err
		}
		if again.Labels["app"] != "web" {
			t.Errorf("a cached Get returned the object an earlier Get returned, not a copy: labels %v", again.Labels)
		}
		if err := c.Create(ctx, deploy("new", 1, nil)); err != nil {
			return err
		}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "new"}, &d); !apierrors.IsNotFound(err) {
			t.Errorf("a cached Get of an object created in the same sync: %v; want NotFound (the cache catches up between syncs)", err)
		}
		var l appsv1.DeploymentList
		if err := c.List(ctx, &l, client.InNamespace("default"), client.MatchingLabels{"app": "web"}); err != nil || len(l.Items) != 1 {
			t.Errorf("cached List: %d items, %v; want web", len(l.Items), err)
		}
		return nil
	}, "default/web")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if got := verbs(res.All); len(got) != 1 || got[0] != "create deployments" {
		t.Errorf("a sync reading from the cache made the requests %v; want only the create (cache reads are not requests)", got)
	}
	f.Refresh()
	var d appsv1.Deployment
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "new"}, &d); err != nil {
		t.Errorf("a cached Get after Refresh: %v; want the created Deployment", err)
	}
}

func TestCacheMutationCheck(t *testing.T) {
	rec := tbtest.Run(t, func(t testing.TB) {
		f := fixture.New(t, fixture.WithObjects(deploy("web", 1, map[string]string{"app": "web"})))
		c := ctrlruntime.NewClient(f, ctrlruntime.Cached(), ctrlruntime.UnsafeDisableDeepCopy(), ctrlruntime.Watching(&appsv1.Deployment{}))
		fixture.Sync(f, func(ctx context.Context, _ string) error {
			var d appsv1.Deployment
			if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "web"}, &d); err != nil {
				return err
			}
			d.Labels["app"] = "changed" // the cache's own map
			return nil
		}, "default/web")
	})
	if !strings.Contains(rec.String(), "changed objects it read from an informer cache") {
		t.Errorf("a reconcile that changed a cached object (UnsafeDisableDeepCopy) passed; failures:\n%s", rec)
	}
}

func TestTable(t *testing.T) {
	fixture.Table[string]{
		Wire:   ctrlruntime.Wire(func(env *ctrlruntime.Env) reconcile.Reconciler { return scaler{env.Client} }),
		Checks: fixture.Checks{FaultSweep: fixture.On},
		Rows: []fixture.Row{{
			Name:         "scales",
			Objects:      []runtime.Object{deploy("web", 1, nil)},
			Key:          "default/web",
			WantReturned: "requeue after 1m0s",
			WantActions: []actions.Action{actions.Update(func() *appsv1.Deployment {
				d := deploy("web", 3, nil)
				return d
			}())},
			WantObjects: []runtime.Object{deploy("web", 3, nil)},
		}},
	}.Run(t)
}

// The reconcile.Result reaches the fixture's result, and so golden files.
func TestResultReturned(t *testing.T) {
	tb := fixture.Table[string]{Wire: ctrlruntime.Wire(func(env *ctrlruntime.Env) reconcile.Reconciler { return scaler{env.Client} })}
	res := tb.RunRow(t, fixture.Row{
		Name:         "scales",
		Objects:      []runtime.Object{deploy("web", 1, nil)},
		Key:          "default/web",
		WantReturned: "requeue after 1m0s",
		WantActions:  []actions.Action{actions.Update(deploy("web", 3, nil))},
	})
	if want := "requeue after 1m0s"; res.Returned != want {
		t.Errorf("Result.Returned = %q, want %q", res.Returned, want)
	}
	if y, err := res.Golden(); err != nil || !strings.Contains(string(y), "returned: requeue after 1m0s\n") {
		t.Errorf("the golden rendering lacks the result (%v):\n%s", err, y)
	}
}

// reconcilerFunc adapts a function to reconcile.Reconciler.
type reconcilerFunc func(context.Context, reconcile.Request) (reconcile.Result, error)

func (f reconcilerFunc) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	return f(ctx, req)
}

func TestTableFailures(t *testing.T) {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	tests := []struct {
		name string
		rec  reconcile.Reconciler
		row  fixture.Row
		want []string
	}{
		{
			name: "a result mismatch",
			rec: reconcilerFunc(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				//lint:ignore SA1019 the deprecated Requeue is what the row must report
				return reconcile.Result{Requeue: true}, nil
			}),
			row:  fixture.Row{Key: "default/web"},
			want: []string{`sync "default/web": returned "requeue", want nothing`},
		},
		{
			name: "a panic",
			rec:  reconcilerFunc(func(context.Context, reconcile.Request) (reconcile.Result, error) { panic("boom") }),
			row:  fixture.Row{Key: "default/web"},
			want: []string{`sync "default/web" panicked: boom`},
		},
		{
			name: "a reconciler that never returns",
			rec: reconcilerFunc(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				<-stop
				return reconcile.Result{}, nil
			}),
			row:  fixture.Row{Key: "default/web", Options: []fixture.Option{fixture.WithTimeout(200 * time.Millisecond), fixture.WithChecks(fixture.Checks{Leaks: fixture.Off})}},
			want: []string{`sync "default/web"`, "did not return"},
		},
		{
			name: "a request for an object that does not exist",
			rec: reconcilerFunc(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
				return reconcile.Result{}, errors.Join(apierrors.NewNotFound(appsv1.Resource("deployments"), req.Name))
			}),
			row:  fixture.Row{Key: "default/web"},
			want: []string{"hint: the sync of default/web, which the row's Objects do not hold, erred NotFound", "client.IgnoreNotFound"},
		},
		{
			name: "a retried error where a terminal one is expected",
			rec: reconcilerFunc(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				return reconcile.Result{}, errors.New("bad spec")
			}),
			row:  fixture.Row{Key: "default/web", WantErr: ctrlruntime.Terminal("bad spec")},
			want: []string{"want a terminal error (reconcile.TerminalError), got a retried one: bad spec"},
		},
		{
			name: "a seed of a type no registration serves",
			rec:  reconcilerFunc(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }),
			row:  fixture.Row{Key: "default/web", Objects: []runtime.Object{&webappv1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}}},
			want: []string{"(Go type *v1.WebApp): no registered clientset serves this type", "fixture.WithTypes(AddToScheme)"},
		},
		{
			name: "a request without a name",
			rec:  reconcilerFunc(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }),
			row:  fixture.Row{Key: "default/"},
			want: []string{`fixture.Sync("default/"): the key's name (after the "/") is empty`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.row.Name = tt.name
			// These rows fail for other reasons: the key's object is
			// absent on purpose.
			ns, name, _ := strings.Cut(tt.row.Key, "/")
			tt.row.Objects = append(tt.row.Objects, fixture.Absent(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}))
			tb := fixture.Table[string]{Wire: ctrlruntime.Wire(func(*ctrlruntime.Env) reconcile.Reconciler { return tt.rec })}
			rec := tbtest.Run(t, func(t testing.TB) { tb.RunRow(t, tt.row) })
			if !rec.Failed() {
				t.Fatalf("the row passed; want a failure")
			}
			for _, w := range tt.want {
				if !strings.Contains(rec.String(), w) {
					t.Errorf("the failure does not say %q:\n%s", w, rec)
				}
			}
		})
	}
}

// labeler labels a Namespace (cluster-scoped) through an uncached client
// and reports it through the events API.
type labeler struct{ env *ctrlruntime.Env }

func (l labeler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var ns corev1.Namespace
	if err := l.env.Client.Get(ctx, req.NamespacedName, &ns); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if ns.Labels["team"] == "web" {
		return reconcile.Result{}, nil
	}
	patch := client.MergeFrom(ns.DeepCopy())
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels["team"] = "web" // the others' labels kept
	if err := l.env.Client.Patch(ctx, &ns, patch); err != nil {
		return reconcile.Result{}, err
	}
	l.env.EventsRecorder.Eventf(&ns, nil, corev1.EventTypeNormal, "Labelled", "Label", "team=web")
	return reconcile.Result{}, nil
}

func TestTableClusterScopedUncached(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "web"}}
	labelled := fixture.NewEvent(ns, corev1.EventTypeNormal, "Labelled", "team=web")
	labelled.Action = "Label" // the events API's action
	fixture.Table[string]{
		Wire: ctrlruntime.Wire(func(env *ctrlruntime.Env) reconcile.Reconciler { return labeler{env} }, ctrlruntime.Uncached()),
		Rows: []fixture.Row{{
			Name:        "labels a namespace",
			Objects:     []runtime.Object{ns},
			Key:         "web",
			WantActions: []actions.Action{actions.Patch(ns, types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"web"}}}`))},
			WantReads:   []actions.Action{actions.Get(ns)},
			WantEvents:  []records.Event{labelled},
		}},
	}.Run(t)
}

// Wire refuses a nil wire function, and a wire function that returns no
// reconciler, naming itself.
func TestWireRefusals(t *testing.T) {
	for name, wire := range map[string]func(*ctrlruntime.Env) reconcile.Reconciler{
		"ctrlruntime.Wire: nil wire function":                           nil,
		"ctrlruntime.Wire: the wire function returned a nil reconciler": func(*ctrlruntime.Env) reconcile.Reconciler { return nil },
	} {
		tb := fixture.Table[string]{Wire: ctrlruntime.Wire(wire)}
		rec := tbtest.Run(t, func(t testing.TB) {
			tb.RunRow(t, fixture.Row{Name: "r", Key: "default/web", Objects: []runtime.Object{fixture.Absent(deploy("web", 1, nil))}})
		})
		if !rec.Stopped() || !strings.Contains(rec.String(), name) {
			t.Errorf("%q: %q; want the row stopped with it", name, rec)
		}
	}
}
