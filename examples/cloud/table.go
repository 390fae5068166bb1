package cloud

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

// ExternalIP is the IP the row's fake cloud gives load balancers: a row
// sets it in its Options.
var ExternalIP = fixture.NewParam("external IP", "203.0.113.10")

// Wire builds the controller on the fixture with a fake cloud; swallows
// makes it hide the cloud's errors.
func Wire(swallows bool) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		services := f.KubeInformers().Core().V1().Services()
		c := New(f.Kube(), services.Lister(), NewFakeCloud(f, ExternalIP.Get(f)))
		c.Swallows = swallows
		queue := fixture.Queue[string](f)
		enqueue := func(obj any) {
			if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
				queue.Add(key)
			}
		}
		if _, err := services.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: enqueue,
		}); err != nil {
			f.T().Fatal(err)
		}
		return c.Sync
	}
}

// Service is the Service web of type LoadBalancer, with ingress ip when
// not "".
func Service(ip string) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{{Port: 80}}},
	}
	if ip != "" {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	}
	return svc
}

// Table is the controller's rows.
func Table() fixture.Table[string] {
	ensure := records.Call{Service: "cloud", Method: "EnsureLoadBalancer", Args: "default/web"}
	return fixture.Table[string]{
		Wire: Wire(false),
		Rows: []fixture.Row{
			{
				Name:        "ensures a load balancer",
				Objects:     []runtime.Object{Service("")},
				Key:         "default/web",
				WantCalls:   []records.Call{ensure},
				WantActions: []actions.Action{actions.UpdateStatus(Service("203.0.113.10"))},
			},
			{
				Name:      "a cloud without an external IP",
				Options:   []fixture.Option{ExternalIP.Set("")},
				Objects:   []runtime.Object{Service("")},
				Key:       "default/web",
				WantCalls: []records.Call{ensure},
				WantErr:   fixture.ErrorIs(ErrNoIP),
			},
			{
				Name:    "a load balancer in place: no call",
				Objects: []runtime.Object{Service("203.0.113.10")},
				Key:     "default/web",
			},
		},
	}
}
