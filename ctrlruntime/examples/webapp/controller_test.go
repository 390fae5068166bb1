package webapp_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrltest/ctrltest/ctrlruntime"
	"github.com/ctrltest/ctrltest/ctrlruntime/examples/webapp"
	webappv1 "github.com/ctrltest/ctrltest/ctrlruntime/examples/webapp/api/v1"
	"github.com/ctrltest/ctrltest/fixture"
)

// WebApps registers the kubebuilder API: no generated clientset needed.
var WebApps = fixture.WithTypes(webappv1.AddToScheme)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// wire builds the reconciler on a fixture (ctrlruntime.Wire adapts it to
// fixture's tables and cases) and sets it up with the Env's manager, as
// main sets it up with the real one: Wire connects the watches
// SetupWithManager declares to the fixture's informers, so the sweeps see
// which changes re-queue which WebApp.
var wire = ctrlruntime.Wire(func(env *ctrlruntime.Env) reconcile.Reconciler {
	r := &webapp.Reconciler{Client: env.Client, Scheme: env.Scheme, Recorder: env.Recorder, Now: func() time.Time { return now }}
	if err := r.SetupWithManager(env.Manager); err != nil {
		env.F.T().Fatal(err)
	}
	return r
})

func newTable(rows ...fixture.Row) fixture.Table[string] {
	return fixture.Table[string]{
		Options:  []fixture.Option{WebApps},
		Wire:     wire,
		Checks:   fixture.Checks{Golden: fixture.On, FaultSweep: fixture.On},
		Parallel: true,
		Rows:     rows,
	}
}

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

// key is the request the rows reconcile ("namespace/name"); pending, what
// a reconcile that waits for its Deployment returns.
var (
	key     = "default/web"
	req     = reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "default", Name: "web"}}
	pending = ctrlruntime.FormatResult(reconcile.Result{RequeueAfter: webapp.PendingRequeue})
)

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
		Status: appsv1.DeploymentStatus{Replicas: available, ReadyReplicas: available, AvailableReplicas: available}, // valid on a server too
	}
}

func service() *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}} // valid on a server too
}

func TestReconcile(t *testing.T) {
	newTable(
		fixture.Row{
			Name: "a new WebApp gets a finalizer, a Deployment and a Service, and waits for them", Objects: []runtime.Object{app()}, Key: key,
			WantReturned: pending,
		},
		fixture.Row{
			Name: "an available Deployment makes the WebApp available", Key: key,
			Objects: []runtime.Object{app(withFinalizer), deployment(2), service()},
		},
		fixture.Row{
			Name: "a scaled WebApp scales its Deployment", Key: key,
			Objects:      []runtime.Object{app(withFinalizer, func(a *webappv1.WebApp) { a.Spec.Replicas = 3 }), deployment(2), service()},
			WantReturned: pending,
		},
		fixture.Row{
			Name: "a deleted WebApp loses its finalizer", Key: key,
			Objects: []runtime.Object{app(withFinalizer, func(a *webappv1.WebApp) { a.DeletionTimestamp = &metav1.Time{Time: now} })},
		},
		fixture.Row{
			Name: "a WebApp that is gone is nothing to do", Key: key, Objects: []runtime.Object{fixture.Absent(app())},
		},
		fixture.Row{
			Name: "an empty image is a terminal error", Key: key,
			Objects: []runtime.Object{app(withFinalizer, func(a *webappv1.WebApp) { a.Spec.Image = "" })},
			WantErr: ctrlruntime.Terminal("spec.image is empty"),
		},
	).Run(t)
}

// TestCases runs the declarative cases of testdata/cases: a new scenario
// is a YAML file, reviewed through its golden file.
func TestCases(t *testing.T) {
	fixture.Cases[string]{
		Dir:     "testdata/cases",
		Options: []fixture.Option{WebApps},
		Wire:    wire,
	}.Run(t)
}
