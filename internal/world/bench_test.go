package world

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkStart times a world's Start for the informers of
// kube-controller-manager's Deployment controller (Deployments,
// ReplicaSets, Pods) and two seeds: the seeding, and the feed of each
// informer (its list options learnt, its store filled, its handlers told).
func BenchmarkStart(b *testing.B) {
	d := deploymentAt("default", "web", "")
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-1", OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Controller: new(true)},
	}}}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		w := newWorld(b, nil, d, rs)
		f := kubeFactory(b, w)
		f.Apps().V1().Deployments().Informer()
		f.Apps().V1().ReplicaSets().Informer()
		f.Core().V1().Pods().Informer()
		b.StartTimer()
		mustStart(b, w)
	}
}
