package apiserver

import (
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
)

// BenchmarkWrite measures the model's writes of a Deployment (a create,
// then an update of its replicas, per op) without a field manager (the
// default world's ordinary writes) and with one that records every write
// (fixture.KubeFieldManaged's: client-go's type converter): the cost of
// managed fields on every write.
func BenchmarkWrite(b *testing.B) {
	converter := applyconfigurations.NewTypeConverter(scheme.Scheme)
	for _, managed := range []bool{false, true} {
		b.Run(fmt.Sprintf("managed=%v", managed), func(b *testing.B) {
			w := newWorld(b)
			r := w.res["v1/deployments"]
			if managed {
				fm, err := managedfields.NewDefaultFieldManager(converter, scheme.Scheme, scheme.Scheme, scheme.Scheme, r.GVK, r.GVK.GroupVersion(), "", nil)
				if err != nil {
					b.Fatal(err)
				}
				r.Fields = fm
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				d := webDeployment(1)
				d.Name = fmt.Sprintf("web-%d", i)
				if _, _, err := w.m.Do(r, clienttesting.NewCreateActionWithOptions(r.GVR, "ns", d, metav1.CreateOptions{FieldManager: "a"})); err != nil {
					b.Fatal(err)
				}
				stored, err := w.tracker.Get(r.GVR, "ns", d.Name)
				if err != nil {
					b.Fatal(err)
				}
				d = stored.(*appsv1.Deployment)
				*d.Spec.Replicas = 2
				if _, _, err := w.m.Do(r, clienttesting.NewUpdateActionWithOptions(r.GVR, "ns", d, metav1.UpdateOptions{FieldManager: "b"})); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkServerTimes measures the truncation of a Deployment's times
// (ServerTimes), which every write and seed pays: a walk of the fields
// that can hold a time, with conditions and managed fields.
func BenchmarkServerTimes(b *testing.B) {
	d := webDeployment(1)
	now := metav1.Now()
	d.CreationTimestamp = now
	d.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "a", Time: &now}, {Manager: "b", Time: &now}}
	d.Status.Conditions = []appsv1.DeploymentCondition{{LastUpdateTime: now, LastTransitionTime: now}, {LastUpdateTime: now, LastTransitionTime: now}}
	ServerTimes(d) // plans the type
	b.ReportAllocs()
	for b.Loop() {
		ServerTimes(d)
	}
}
