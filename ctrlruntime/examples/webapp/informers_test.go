package webapp_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/ctrltest/ctrltest/ctrlruntime"
	"github.com/ctrltest/ctrltest/ctrlruntime/examples/webapp"
	webappv1 "github.com/ctrltest/ctrltest/ctrlruntime/examples/webapp/api/v1"
	"github.com/ctrltest/ctrltest/fixture"
)

// TestReconcileWithInformers reconciles with started informers: the
// manager's cache is then the fixture's running informers.
func TestReconcileWithInformers(t *testing.T) {
	f := fixture.New(t, WebApps, fixture.WithInformers(),
		fixture.WithObjects(app(withFinalizer), deployment(2), service()))
	env := ctrlruntime.NewEnv(f, ctrlruntime.Cached(), ctrlruntime.Watching(&webappv1.WebApp{}, &appsv1.Deployment{}, &corev1.Service{}))
	r := &webapp.Reconciler{Client: env.Client, Scheme: env.Scheme, Recorder: env.Recorder, Now: func() time.Time { return now }}
	res, got := ctrlruntime.Reconcile(f, r, req)
	if res.Err != nil || got.RequeueAfter != 0 {
		t.Fatalf("reconcile: %v, %s; want no error and no requeue", res.Err, ctrlruntime.FormatResult(got))
	}
	if w := res.Actions(); len(w) != 1 || w[0].Subresource != "status" {
		t.Errorf("writes %v; want the WebApp's status update only", w)
	}
	if msg := fixture.CheckIdempotent(f, ctrlruntime.SyncFunc(r, nil), ctrlruntime.Key(req)); msg != "" {
		t.Error(msg)
	}
}
