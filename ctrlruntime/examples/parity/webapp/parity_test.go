// Package webappparity runs rows of the WebApp reconciler's table
// (ctrlruntime/examples/webapp) on the fixture's world and on a real API
// server with the WebApp CRD installed, and reports where they differ. Its
// tests skip without a server (make parity).
package webappparity

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrltest/ctrltest/ctrlruntime"
	"github.com/ctrltest/ctrltest/ctrlruntime/examples/webapp"
	webappv1 "github.com/ctrltest/ctrltest/ctrlruntime/examples/webapp/api/v1"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/parity"
)

// TestMain shares one real API server, with the WebApp CRD installed,
// across the tests (they skip without one; see make parity), and fails the
// run when a goroutine outlives them.
func TestMain(m *testing.M) {
	code := parity.Main(m, "../../webapp/config/crd/webapps.yaml")
	if err := goleak.Find(); code == 0 && err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// TestReconcileParity runs rows of the WebApp table on the fixture's world
// and on kube-apiserver (the WebApp CRD installed), through
// controller-runtime's own client there.
func TestReconcileParity(t *testing.T) {
	tb := fixture.Table[string]{
		Options: []fixture.Option{webApps},
		Wire:    wire,
		Rows: []fixture.Row{
			{Name: "a new WebApp", Objects: []runtime.Object{app()}, Key: key,
				WantReturned: pending},
			{Name: "an available Deployment", Key: key,
				Objects: []runtime.Object{app(withFinalizer), deployment(2), service()}},
			{Name: "a WebApp that is gone", Key: key, Objects: []runtime.Object{fixture.Absent(app())}},
			{Name: "an empty image", Key: key, WantErr: ctrlruntime.Terminal("spec.image is empty"),
				Objects: []runtime.Object{app(withFinalizer, func(a *webappv1.WebApp) { a.Spec.Image = "" })}},
		},
	}
	parity.Run(t, parity.Shared(t), tb,
		parity.Known{Row: "a new WebApp", Kind: parity.Defaulting,
			Reason: "the server defaults the Deployment and the Service the reconciler creates; the fakes do not"},
		parity.Known{Row: "an available Deployment", Kind: parity.Defaulting,
			Reason: "the server defaults the seeded Deployment and Service; the fakes do not"},
	)
}

// What follows is the example's own test setup (ctrlruntime/examples/webapp's
// controller_test.go), which a module of its own cannot import.

var webApps = fixture.WithTypes(webappv1.AddToScheme)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

var wire = ctrlruntime.Wire(func(env *ctrlruntime.Env) reconcile.Reconciler {
	return &webapp.Reconciler{Client: env.Client, Scheme: env.Scheme, Recorder: env.Recorder, Now: func() time.Time { return now }}
})

var (
	key     = "default/web"
	pending = ctrlruntime.FormatResult(reconcile.Result{RequeueAfter: webapp.PendingRequeue})
)

func app(mods ...func(*webappv1.WebApp)) *webappv1.WebApp {
	a := &webappv1.WebApp{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec:       webappv1.WebAppSpec{Image: "nginx:1.27", Replicas: 2},
	}
	for _, m := range mods {
		m(a)
	}
	return a
}

func withFinalizer(a *webappv1.WebApp) { a.Finalizers = []string{webapp.Finalizer} }

// deployment is the WebApp's Deployment as a previous reconcile created
// it, with available replicas.
func deployment(available int32) *appsv1.Deployment {
	ctl := true
	two := int32(2)
	l := map[string]string{"app.kubernetes.io/name": "web"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", Labels: l,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "webapp.example.com/v1", Kind: "WebApp", Name: "web", Controller: &ctl, BlockOwnerDeletion: &ctl}}},
		Spec: appsv1.DeploymentSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: l},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: l},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27", Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}}}}},
		Status: appsv1.DeploymentStatus{Replicas: available, ReadyReplicas: available, AvailableReplicas: available},
	}
}

func service() *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
}
