package world

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	configMapsGVR  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

func deploymentAt(ns, name, rv string) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
}

// Without hooks the model has none: its hot path is unchanged.
func TestNoAdmissionWithoutHooks(t *testing.T) {
	if m := newWorld(t, nil).backend.(*modelBackend).model; m.Admission != nil || m.Admits() {
		t.Errorf("a world without hooks gave the model an admission")
	}
	hooked := newWorld(t, func(c *Config) { c.Admission.Defaulters = []func(runtime.Object){func(runtime.Object) {}} })
	if m := hooked.backend.(*modelBackend).model; !m.Admits() {
		t.Errorf("a world with a defaulting hook gave the model none")
	}
}

// Seeding is lazy: the tracker receives a resource's objects with the
// first request for them, an indexer once the controller asked for its
// informer.
func TestSeedingIsLazy(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "cm"}}
	w := newWorld(t, nil, deploymentAt("default", "web", ""), cm)
	cs := w.clientsets[0]
	deployments := kubeFactory(t, w).Apps().V1().Deployments().Lister() // as a controller's constructor does
	w.Start()
	w.IndexAll()
	if _, err := deployments.Deployments("default").Get("web"); err != nil {
		t.Errorf("the Deployment informer the controller asked for: %v", err)
	}
	if _, err := cs.tracker.Get(configMapsGVR, "other", "cm"); err == nil {
		t.Error("the ConfigMap reached the tracker though nothing asked for it")
	}
	if _, ok := cs.indexedInformer(configMapsGVR); ok {
		t.Error("the world made a ConfigMap informer the controller did not ask for")
	}
	if obj, err := w.Object(cm); err != nil || obj == nil {
		t.Errorf("Object does not see a seed no request asked for: %v, %v", obj, err)
	}
}

// The dynamic and metadata informer factories make the informers the
// controller asks for, and only those.
func TestSourceInformersOnlyAskedFor(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cm"}}
	w := newWorld(t, nil, deploymentAt("default", "web", ""), cm)
	dyn := w.DynamicInformers().ForResource(deploymentsGVR)
	w.Start()
	w.IndexAll()
	if _, err := dyn.Lister().ByNamespace("default").Get("web"); err != nil {
		t.Errorf("the dynamic Deployment informer: %v", err)
	}
	if got := len(w.sourceInformersOf(deploymentsGVR)); got != 1 {
		t.Errorf("%d source informers of deployments; want the dynamic one", got)
	}
	if w.sourceInformersOf(configMapsGVR) != nil {
		t.Errorf("configmaps have a source informer nobody asked for")
	}
}
