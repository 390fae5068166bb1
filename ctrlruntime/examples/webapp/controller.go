// Package webapp is a kubebuilder-style controller-runtime reconciler,
// tested with ctrltest's ctrlruntime tables (controller_test.go): a WebApp
// (api/v1) gets a Deployment and a Service it owns, a finalizer, and an
// Available condition; while the Deployment is not available the
// reconciler asks to be requeued.
package webapp

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "github.com/ctrltest/ctrltest/ctrlruntime/examples/webapp/api/v1"
)

// Finalizer is the WebApp finalizer the reconciler adds and removes.
const Finalizer = "webapp.example.com/cleanup"

// PendingRequeue is how soon a WebApp whose Deployment is not available
// yet is reconciled again.
const PendingRequeue = 10 * time.Second

// Reconciler reconciles WebApps.
type Reconciler struct {
	Client   client.Client
	Scheme   *runtime.Scheme
	Recorder record.EventRecorder
	// Now stamps condition transitions (time.Now when nil).
	Now func() time.Time
}

var _ reconcile.Reconciler = (*Reconciler)(nil)

// SharedConfig is the ConfigMap every WebApp of its namespace reads: a
// change of it reconciles them all.
const SharedConfig = "webapp-config"

// SetupWithManager registers the reconciler with a manager: WebApps whose
// spec changed (not their status), the Deployments and Services they own,
// and the namespace's shared ConfigMap.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&webappv1.WebApp{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.appsOfConfig)).
		Complete(r)
}

// appsOfConfig maps the shared ConfigMap to the WebApps of its namespace.
func (r *Reconciler) appsOfConfig(ctx context.Context, cm client.Object) []reconcile.Request {
	if cm.GetName() != SharedConfig {
		return nil
	}
	var apps webappv1.WebAppList
	if err := r.Client.List(ctx, &apps, client.InNamespace(cm.GetNamespace())); err != nil {
		return nil
	}
	reqs := make([]reconcile.Request, len(apps.Items))
	for i, a := range apps.Items {
		reqs[i] = reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&a)}
	}
	return reqs
}

// Reconcile brings one WebApp's Deployment, Service and status in line
// with its spec.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	app := &webappv1.WebApp{}
	if err := r.Client.Get(ctx, req.NamespacedName, app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !app.DeletionTimestamp.IsZero() {
		if controllerutil.ContainsFinalizer(app, Finalizer) {
			r.Recorder.Event(app, corev1.EventTypeNormal, "CleanedUp", "the WebApp's resources are released")
			controllerutil.RemoveFinalizer(app, Finalizer)
			if err := r.Client.Update(ctx, app); err != nil {
				return ctrl.Result{}, err
			}
		}
		return ctrl.Result{}, nil
	}
	if controllerutil.AddFinalizer(app, Finalizer) {
		if err := r.Client.Update(ctx, app); err != nil {
			return ctrl.Result{}, err
		}
	}
	if app.Spec.Image == "" {
		r.Recorder.Event(app, corev1.EventTypeWarning, "InvalidSpec", "spec.image is empty")
		return ctrl.Result{}, reconcile.TerminalError(fmt.Errorf("webapp %s: spec.image is empty", req.NamespacedName))
	}
	dep, err := r.deployment(ctx, app)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.service(ctx, app); err != nil {
		return ctrl.Result{}, err
	}
	available := dep.Status.AvailableReplicas >= replicas(app)
	cond := metav1.Condition{Type: "Available", Status: metav1.ConditionTrue, Reason: "DeploymentAvailable",
		Message: "every replica is available", ObservedGeneration: app.Generation, LastTransitionTime: r.now()}
	if !available {
		cond.Status, cond.Reason = metav1.ConditionFalse, "Pending"
		cond.Message = fmt.Sprintf("%d of %d replicas available", dep.Status.AvailableReplicas, replicas(app))
	}
	before := app.Status.DeepCopy()
	meta.SetStatusCondition(&app.Status.Conditions, cond)
	app.Status.ObservedGeneration = app.Generation
	if !equality.Semantic.DeepEqual(before, &app.Status) {
		if err := r.Client.Status().Update(ctx, app); err != nil {
			return ctrl.Result{}, err
		}
	}
	if !available {
		return ctrl.Result{RequeueAfter: PendingRequeue}, nil
	}
	return ctrl.Result{}, nil
}

func (r *Reconciler) now() metav1.Time {
	if r.Now != nil {
		return metav1.NewTime(r.Now())
	}
	return metav1.Now()
}

func replicas(app *webappv1.WebApp) int32 {
	if app.Spec.Replicas == 0 {
		return 1
	}
	return app.Spec.Replicas
}

func labels(app *webappv1.WebApp) map[string]string {
	return map[string]string{"app.kubernetes.io/name": app.Name}
}

// deployment creates or updates the WebApp's Deployment and returns it.
func (r *Reconciler) deployment(ctx context.Context, app *webappv1.WebApp) (*appsv1.Deployment, error) {
	want := appsv1.DeploymentSpec{
		Replicas: new(replicas(app)),
		Selector: &metav1.LabelSelector{MatchLabels: labels(app)},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels(app)},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "web", Image: app.Spec.Image,
				Ports: []corev1.ContainerPort{{ContainerPort: port(app)}},
			}}},
		},
	}
	dep := &appsv1.Deployment{}
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: app.Namespace, Name: app.Name}, dep)
	switch {
	case apierrors.IsNotFound(err):
		dep = &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name, Labels: labels(app)}, Spec: want}
		if err := controllerutil.SetControllerReference(app, dep, r.Scheme); err != nil {
			return nil, err
		}
		if err := r.Client.Create(ctx, dep); err != nil {
			return nil, err
		}
		r.Recorder.Eventf(app, corev1.EventTypeNormal, "Created", "created Deployment %s", dep.Name)
		return dep, nil
	case err != nil:
		return nil, err
	}
	if !metav1.IsControlledBy(dep, app) {
		return nil, reconcile.TerminalError(fmt.Errorf("deployment %s/%s exists and is not owned by the WebApp", dep.Namespace, dep.Name))
	}
	if *dep.Spec.Replicas != *want.Replicas || dep.Spec.Template.Spec.Containers[0].Image != app.Spec.Image {
		dep.Spec.Replicas = want.Replicas
		dep.Spec.Template.Spec.Containers[0].Image = app.Spec.Image
		if err := r.Client.Update(ctx, dep); err != nil {
			return nil, err
		}
	}
	return dep, nil
}

func port(app *webappv1.WebApp) int32 {
	if app.Spec.Port == 0 {
		return 8080
	}
	return app.Spec.Port
}

// service creates the WebApp's Service if it is missing.
func (r *Reconciler) service(ctx context.Context, app *webappv1.WebApp) error {
	svc := &corev1.Service{}
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: app.Namespace, Name: app.Name}, svc)
	if !apierrors.IsNotFound(err) {
		return err
	}
	svc = &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name, Labels: labels(app)},
		Spec: corev1.ServiceSpec{
			Selector: labels(app),
			Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(port(app))}},
		},
	}
	if err := controllerutil.SetControllerReference(app, svc, r.Scheme); err != nil {
		return err
	}
	return r.Client.Create(ctx, svc)
}
