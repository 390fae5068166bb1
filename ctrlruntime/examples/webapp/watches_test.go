package webapp_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrltest/ctrltest/ctrlruntime"
	"github.com/ctrltest/ctrltest/ctrlruntime/examples/webapp"
	webappv1 "github.com/ctrltest/ctrltest/ctrlruntime/examples/webapp/api/v1"
	"github.com/ctrltest/ctrltest/fixture"
)

// TestWatches checks which object events enqueue which requests, for the
// controller SetupWithManager builds: no manager runs, no sleep.
func TestWatches(t *testing.T) {
	other := app(func(a *webappv1.WebApp) { a.Name = "blog" })
	f := fixture.New(t, WebApps, fixture.WithObjects(app(), other))
	env := ctrlruntime.NewEnv(f, ctrlruntime.Cached())
	if err := (&webapp.Reconciler{Client: env.Client, Scheme: env.Scheme, Recorder: env.Recorder}).SetupWithManager(env.Manager); err != nil {
		t.Fatal(err)
	}
	w := env.Manager.Watches(t)

	respec := app(func(a *webappv1.WebApp) { a.Generation = 2; a.Spec.Replicas = 5 })
	restatus := app(func(a *webappv1.WebApp) { a.Status.ObservedGeneration = 1 })
	owned := deployment(1)
	unowned := deployment(1)
	unowned.OwnerReferences = nil
	cm := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	}
	web := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "web"}}
	blog := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "blog"}}
	tests := []struct {
		name  string
		event func() []reconcile.Request
		want  []reconcile.Request
	}{
		{"a new WebApp", func() []reconcile.Request { return w.Create(app()) }, []reconcile.Request{web}},
		{"a WebApp's spec changed", func() []reconcile.Request { return w.Update(app(), respec) }, []reconcile.Request{web}},
		{"only a WebApp's status changed (GenerationChangedPredicate)", func() []reconcile.Request { return w.Update(app(), restatus) }, nil},
		{"a deleted WebApp", func() []reconcile.Request { return w.Delete(app()) }, []reconcile.Request{web}},
		{"its Deployment changed", func() []reconcile.Request { return w.Update(owned, owned) }, []reconcile.Request{web}},
		{"a Deployment it does not own", func() []reconcile.Request { return w.Create(unowned) }, nil},
		{"its Service deleted", func() []reconcile.Request {
			s := service()
			s.OwnerReferences = owned.OwnerReferences
			return w.Delete(s)
		}, []reconcile.Request{web}},
		{"the shared ConfigMap (a map function listing WebApps)", func() []reconcile.Request { return w.Create(cm(webapp.SharedConfig)) }, []reconcile.Request{blog, web}},
		{"another ConfigMap", func() []reconcile.Request { return w.Create(cm("unrelated")) }, nil},
		{"a Pod nothing watches", func() []reconcile.Request {
			return w.Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1"}})
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.event()); diff != "" {
				t.Errorf("enqueued requests (-want +got):\n%s", diff)
			}
		})
	}
}
