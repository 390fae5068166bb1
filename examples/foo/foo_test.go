package foo

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/controller"
	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/controller/generated/clientset/versioned/fake"
	"github.com/ctrltest/ctrltest/controller/generated/informers/externalversions"
	"github.com/ctrltest/ctrltest/fixture"
)

// foos registers the Foo clientset, once, for every fixture that asks for it.
var foos = fixture.Register(fake.NewSimpleClientset, fake.AddToScheme, externalversions.NewSharedInformerFactory)

// wire builds the controller on a row's fixture, as main builds it on a cluster.
func wire(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
	c, err := controller.New(f.Context(), f.Kube(), foos.Client(f),
		f.KubeInformers().Apps().V1().Deployments(), foos.Informers(f).Samplecontroller().V1alpha1().Foos(),
		f.Recorder(), controller.WithQueue(fixture.Queue[cache.ObjectName](f)))
	if err != nil {
		f.T().Fatal(err)
	}
	return c.Sync
}

func newFoo(replicas int32) *v1alpha1.Foo {
	return &v1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: "test", Namespace: metav1.NamespaceDefault, UID: "foo-uid"},
		Spec:       v1alpha1.FooSpec{DeploymentName: "test", Replicas: ptr.To(replicas)},
	}
}

// newDeployment is the Deployment the controller makes for foo, with replicas.
func newDeployment(foo *v1alpha1.Foo, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": "nginx", "controller": foo.Name}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: foo.Spec.DeploymentName, Namespace: foo.Namespace,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(foo, v1alpha1.SchemeGroupVersion.WithKind("Foo"))}}}
	d.Spec.Replicas, d.Spec.Selector = ptr.To(replicas), &metav1.LabelSelector{MatchLabels: labels}
	d.Spec.Template.Labels, d.Spec.Template.Spec.Containers = labels, []corev1.Container{{Name: "nginx", Image: "nginx:latest"}}
	return d
}

func TestFooController(t *testing.T) {
	foo, synced := newFoo(1), fixture.NewEvent(newFoo(1), "Normal", controller.SuccessSynced, controller.MessageResourceSynced)
	available := newDeployment(foo, 1)
	available.Status.AvailableReplicas = 1
	withStatus := foo.DeepCopy()
	withStatus.Status.AvailableReplicas = 1
	fixture.Table[cache.ObjectName]{Wire: wire, Options: []fixture.Option{fixture.WithClientset(foos)}, Rows: []fixture.Row{{
		Name: "creates a Deployment", Key: "default/test", Objects: []runtime.Object{foo},
		WantActions: []actions.Action{actions.Create(newDeployment(foo, 1))}, WantEvents: []fixture.Event{synced},
	}, {
		Name: "does nothing when in sync", Key: "default/test", Objects: []runtime.Object{withStatus, available},
		WantEvents: []fixture.Event{synced},
	}, {
		Name: "reports available replicas", Key: "default/test", Objects: []runtime.Object{foo, available},
		WantActions: []actions.Action{actions.UpdateStatus(withStatus)}, WantEvents: []fixture.Event{synced},
	}, {
		Name: "updates the Deployment's replicas", Key: "default/test", Objects: []runtime.Object{newFoo(2), newDeployment(foo, 1)},
		WantActions: []actions.Action{actions.Update(newDeployment(newFoo(2), 2))}, WantEvents: []fixture.Event{synced},
	}, {
		Name: "refuses a Deployment it does not control", Key: "default/test",
		Objects: []runtime.Object{foo, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "test", Namespace: "default"}}},
		WantErr: fixture.ErrorContains("not managed by Foo"),
		WantEvents: []fixture.Event{fixture.NewEvent(foo, "Warning", controller.ErrResourceExists,
			`Resource "test" already exists and is not managed by Foo`)},
	}}}.Run(t)
}
