// Package mirror is a small controller-runtime reconciler on kube types
// only, so that its table also runs on a real API server (the parity
// module; see mirror_test.go): a ConfigMap labelled mirror=true gets an
// owned Secret holding the same data.
package mirror

import (
	"context"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrltest/ctrltest/ctrlruntime"
	"github.com/ctrltest/ctrltest/fixture"
)

// Label marks the ConfigMaps to mirror.
const Label = "mirror"

// Reconciler mirrors labelled ConfigMaps into Secrets.
type Reconciler struct {
	Client   client.Client
	Scheme   *runtime.Scheme
	Recorder record.EventRecorder
}

// Reconcile mirrors one ConfigMap.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Client.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if cm.Labels[Label] != "true" {
		return reconcile.Result{}, nil
	}
	data := map[string][]byte{}
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	var s corev1.Secret
	err := r.Client.Get(ctx, req.NamespacedName, &s)
	switch {
	case apierrors.IsNotFound(err):
		s = corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name}, Type: corev1.SecretTypeOpaque, Data: data}
		if err := controllerutil.SetControllerReference(&cm, &s, r.Scheme); err != nil {
			return reconcile.Result{}, err
		}
		if err := r.Client.Create(ctx, &s); err != nil {
			return reconcile.Result{}, err
		}
		r.Recorder.Eventf(&cm, corev1.EventTypeNormal, "Mirrored", "created Secret %s", s.Name)
		return reconcile.Result{RequeueAfter: time.Hour}, nil
	case err != nil:
		return reconcile.Result{}, err
	}
	if maps.EqualFunc(s.Data, data, func(a, b []byte) bool { return string(a) == string(b) }) {
		return reconcile.Result{RequeueAfter: time.Hour}, nil
	}
	s.Data = data
	return reconcile.Result{RequeueAfter: time.Hour}, r.Client.Update(ctx, &s)
}

// SetupWithManager registers the reconciler with a manager: ConfigMaps,
// and the Secrets they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}).
		Owns(&corev1.Secret{}).
		Complete(r)
}

// Table is the reconciler's table, run on the fakes by mirror_test.go and
// on a real API server by the parity test.
func Table() fixture.Table[string] {
	cm := func(labels map[string]string, data map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "settings", Labels: labels}, Data: data}
	}
	secret := func(data map[string]string) *corev1.Secret {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "settings"}, Type: corev1.SecretTypeOpaque, Data: map[string][]byte{}}
		for k, v := range data {
			s.Data[k] = []byte(v)
		}
		return s
	}
	const key = "default/settings"
	mirrored := map[string]string{Label: "true"}
	hour := ctrlruntime.FormatResult(reconcile.Result{RequeueAfter: time.Hour})
	return fixture.Table[string]{
		// SetupWithManager on env.Manager: Wire connects the watches to the
		// fixture's informers, so the sweeps see what re-queues a ConfigMap.
		Wire: ctrlruntime.Wire(func(env *ctrlruntime.Env) reconcile.Reconciler {
			r := &Reconciler{Client: env.Client, Scheme: env.Scheme, Recorder: env.Recorder}
			if err := r.SetupWithManager(env.Manager); err != nil {
				env.F.T().Fatal(err)
			}
			return r
		}),
		Checks: fixture.Checks{Golden: fixture.On, FaultSweep: fixture.On},
		Rows: []fixture.Row{
			{Name: "a labelled ConfigMap gets a Secret", Key: key, WantReturned: hour,
				Objects: []runtime.Object{cm(mirrored, map[string]string{"mode": "fast"})}},
			{Name: "a changed ConfigMap updates its Secret", Key: key, WantReturned: hour,
				Objects: []runtime.Object{cm(mirrored, map[string]string{"mode": "slow"}), secret(map[string]string{"mode": "fast"})}},
			{Name: "a Secret in step is left alone", Key: key, WantReturned: hour,
				Objects: []runtime.Object{cm(mirrored, map[string]string{"mode": "fast"}), secret(map[string]string{"mode": "fast"})}},
			{Name: "an unlabelled ConfigMap is ignored", Key: key,
				Objects: []runtime.Object{cm(nil, map[string]string{"mode": "fast"})}},
			{Name: "a deleted ConfigMap is nothing to do", Key: key, Objects: []runtime.Object{fixture.Absent(cm(nil, nil))}},
		},
	}
}

var _ reconcile.Reconciler = (*Reconciler)(nil)
