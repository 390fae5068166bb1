package foo

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/controller"
	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/controller/generated/clientset/versioned"
	"github.com/ctrltest/ctrltest/controller/generated/clientset/versioned/fake"
	"github.com/ctrltest/ctrltest/controller/generated/informers/externalversions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

// Foos registers the Foo clientset, once, for every fixture that asks for
// it: its fake for unit tests, its real constructor for parity runs.
var Foos = fixture.Register(fake.NewSimpleClientset, fake.AddToScheme, externalversions.NewSharedInformerFactory,
	fixture.ForConfig(versioned.NewForConfig))

// Wire builds the controller on a row's fixture, as main builds it on a cluster.
func Wire(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
	c, err := controller.New(f.Context(), f.Kube(), Foos.Client(f),
		f.KubeInformers().Apps().V1().Deployments(), Foos.Informers(f).Samplecontroller().V1alpha1().Foos(),
		f.Recorder(), controller.WithQueue(fixture.Queue[cache.ObjectName](f)))
	if err != nil {
		f.T().Fatal(err)
	}
	return c.Sync
}

// NewFoo is the Foo named test in default, asking for replicas.
func NewFoo(replicas int32) *v1alpha1.Foo {
	return &v1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: "test", Namespace: metav1.NamespaceDefault, UID: "foo-uid"},
		Spec:       v1alpha1.FooSpec{DeploymentName: "test", Replicas: ptr.To(replicas)},
	}
}

// NewDeployment is the Deployment the controller makes for foo, with replicas.
func NewDeployment(foo *v1alpha1.Foo, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": "nginx", "controller": foo.Name}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: foo.Spec.DeploymentName, Namespace: foo.Namespace,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(foo, v1alpha1.SchemeGroupVersion.WithKind("Foo"))}}}
	d.Spec.Replicas, d.Spec.Selector = ptr.To(replicas), &metav1.LabelSelector{MatchLabels: labels}
	d.Spec.Template.Labels, d.Spec.Template.Spec.Containers = labels, []corev1.Container{{Name: "nginx", Image: "nginx:latest"}}
	return d
}

// Available gives d the status of a Deployment whose replicas are all
// available. (A real API server refuses available replicas that are not
// also ready and counted; parity runs found rows that seeded only
// availableReplicas.)
func Available(d *appsv1.Deployment) *appsv1.Deployment {
	n := *d.Spec.Replicas
	d.Status = appsv1.DeploymentStatus{Replicas: n, UpdatedReplicas: n, ReadyReplicas: n, AvailableReplicas: n}
	return d
}

// Table is the Foo controller's scenarios: TestFooController runs them on
// client-go's fakes, and the parity module's tests run them on a real API
// server too.
func Table() fixture.Table[cache.ObjectName] {
	foo, synced := NewFoo(1), fixture.NewEvent(NewFoo(1), "Normal", controller.SuccessSynced, controller.MessageResourceSynced)
	available := Available(NewDeployment(foo, 1))
	withStatus := foo.DeepCopy()
	withStatus.Status.AvailableReplicas = 1
	notControlled := NewDeployment(foo, 1)
	notControlled.OwnerReferences = nil
	return fixture.Table[cache.ObjectName]{Wire: Wire, Options: []fixture.Option{fixture.WithClientset(Foos)}, Rows: []fixture.Row{{
		Name: "creates a Deployment", Key: "default/test", Objects: []runtime.Object{foo},
		WantActions: []actions.Action{actions.Create(NewDeployment(foo, 1))}, WantEvents: []records.Event{synced},
	}, {
		Name: "does nothing when in sync", Key: "default/test", Objects: []runtime.Object{withStatus, available},
		WantEvents: []records.Event{synced},
	}, {
		Name: "reports available replicas", Key: "default/test", Objects: []runtime.Object{foo, available},
		WantActions: []actions.Action{actions.UpdateStatus(withStatus)}, WantEvents: []records.Event{synced},
	}, {
		Name: "updates the Deployment's replicas", Key: "default/test", Objects: []runtime.Object{NewFoo(2), NewDeployment(foo, 1)},
		WantActions: []actions.Action{actions.Update(NewDeployment(NewFoo(2), 2))}, WantEvents: []records.Event{synced},
	}, {
		Name: "refuses a Deployment it does not control", Key: "default/test",
		Objects: []runtime.Object{foo, notControlled},
		WantErr: fixture.ErrorContains("not managed by Foo"),
		WantEvents: []records.Event{fixture.NewEvent(foo, "Warning", controller.ErrResourceExists,
			`Resource "test" already exists and is not managed by Foo`)},
	}}}
}
