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

var foos = fixture.Register(fake.NewSimpleClientset, fake.AddToScheme, externalversions.NewSharedInformerFactory)

func wire(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
	c, err := controller.New(f.Context(), f.Kube(), foos.Client(f),
		f.KubeInformers().Apps().V1().Deployments(),
		foos.Informers(f).Samplecontroller().V1alpha1().Foos(),
		f.Recorder(), controller.WithQueue(fixture.Queue[cache.ObjectName](f)))
	if err != nil {
		f.T().Fatal(err)
	}
	return c.Sync
}

func newFoo(replicas int32) *v1alpha1.Foo {
	return &v1alpha1.Foo{
		ObjectMeta: metav1.ObjectMeta{Name: "test", Namespace: metav1.NamespaceDefault},
		Spec:       v1alpha1.FooSpec{DeploymentName: "test", Replicas: ptr.To(replicas)},
	}
}

func TestFoo(t *testing.T) {
	foo := newFoo(1)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "test", Namespace: "default"}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1)}}
	fixture.Table[cache.ObjectName]{
		Wire:    wire,
		Options: []fixture.Option{fixture.WithClientset(foos)},
		Rows: []fixture.Row{{
			Name:        "refuses a Deployment it does not control",
			Objects:     []runtime.Object{foo, d},
			Key:         "default/test",
			WantErr:     fixture.ErrorContains("not managed by Foo"),
			WantEvents:  []fixture.Event{fixture.NewEvent(foo, corev1.EventTypeWarning, controller.ErrResourceExists, `Resource "test" already exists and is not managed by Foo`)},
			WantActions: []actions.Action{},
		}},
	}.Run(t)
}
