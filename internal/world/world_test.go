package world

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrltest/ctrltest/actions"
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
	creates := newWorld(t, func(c *Config) { c.Admission = defaulting{AdmissionHooks{Create: true}} })
	if m := creates.backend.(*modelBackend).model; m.Admission != nil {
		t.Errorf("a world whose admission checks creates only gave the model an admission")
	}
	hooked := newWorld(t, func(c *Config) { c.Admission = defaulting{AdmissionHooks{Default: true}} })
	if m := hooked.backend.(*modelBackend).model; !m.Admits() || m.Admission.Validate != nil {
		t.Errorf("a world with a defaulting hook gave the model none, or more")
	}
}

// defaulting is an Admission whose hooks do nothing.
type defaulting struct{ hooks AdmissionHooks }

func (d defaulting) Hooks() AdmissionHooks                                         { return d.hooks }
func (defaulting) Default(runtime.Object) error                                    { return nil }
func (defaulting) Validate(runtime.Object, runtime.Object, string) field.ErrorList { return nil }
func (defaulting) Warn(runtime.Object, runtime.Object, string) []string            { return nil }
func (defaulting) Create(schema.GroupVersionResource, string, runtime.Object) error {
	return nil
}

// Seeding is lazy: the tracker receives a resource's objects with the
// first request for them, an indexer once the controller asked for its
// informer.
func TestSeedingIsLazy(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "cm"}}
	w := newWorld(t, nil, deploymentAt("default", "web", ""), cm)
	cs := w.clientsets[0]
	deployments := kubeFactory(t, w).Apps().V1().Deployments().Lister() // as a controller's constructor does
	mustStart(t, w)
	must(t, w.IndexAll())
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
	dynInformers, err := w.DynamicInformers()
	must(t, err)
	dyn := dynInformers.ForResource(deploymentsGVR)
	mustStart(t, w)
	must(t, w.IndexAll())
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

// The log keeps every request as the client sent it, though it shares the
// request's object with the server model where nothing changes it: the
// model fills in its own copy, a test's reactor that changes what it is
// given changes the model's request only, and the uids the model gave
// seeds read as the test wrote them.
func TestLogKeepsRequestsAsSent(t *testing.T) {
	w := newWorld(t, nil, deploymentAt("default", "web", ""))
	client, _, _ := w.Clientset(reflect.TypeFor[kubernetes.Interface]())
	kube := client.(kubernetes.Interface)
	ctx := t.Context()
	mustStart(t, w)

	stored, err := kube.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil || stored.UID == "" {
		t.Fatalf("the seed: %v, uid %q", err, stored.UID)
	}
	made, err := kube.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", GenerateName: "cm-", OwnerReferences: []metav1.OwnerReference{
			{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: stored.UID},
		}},
	}, metav1.CreateOptions{})
	if err != nil || made.Name == "" || made.UID == "" || made.OwnerReferences[0].UID != stored.UID {
		t.Fatalf("create: %v; got %+v", err, made)
	}
	w.PrependReactor("update", "deployments", func(a clienttesting.Action) (bool, runtime.Object, error) {
		a.(clienttesting.UpdateAction).GetObject().(*appsv1.Deployment).Labels = map[string]string{"reactor": "was here"}
		return false, nil, nil
	})
	sent := stored.DeepCopy()
	sent.Annotations = map[string]string{"a": "b"}
	updated, err := kube.AppsV1().Deployments("default").Update(ctx, sent, metav1.UpdateOptions{})
	if err != nil || updated.Labels["reactor"] == "" || updated.ResourceVersion == sent.ResourceVersion {
		t.Fatalf("update: %v; got %+v", err, updated)
	}
	sent.Status.Replicas = 3
	sent.ResourceVersion = updated.ResourceVersion
	if _, err := kube.AppsV1().Deployments("default").UpdateStatus(ctx, sent, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("status update: %v", err)
	}

	var writes []actions.Action
	for _, a := range w.Requests() {
		if a.IsWrite() {
			writes = append(writes, a)
		}
	}
	if len(writes) != 3 {
		t.Fatalf("%d writes logged, want 3: %v", len(writes), writes)
	}
	cm := writes[0].Object.(*corev1.ConfigMap)
	if cm.Name != "" || cm.UID != "" || cm.ResourceVersion != "" || !cm.CreationTimestamp.IsZero() {
		t.Errorf("the logged create holds what the model filled in: %+v", cm.ObjectMeta)
	}
	if uid := cm.OwnerReferences[0].UID; uid != "" {
		t.Errorf("the logged create's owner reference has the uid the model gave the seed (%q), not the test's (none)", uid)
	}
	if d := writes[1].Object.(*appsv1.Deployment); d.Labels != nil || d.ResourceVersion != stored.ResourceVersion || d.Annotations["a"] != "b" {
		t.Errorf("the logged update is not the request sent: %+v", d.ObjectMeta)
	}
	if d := writes[2].Object.(*appsv1.Deployment); d.Status.Replicas != 3 || d.ResourceVersion != updated.ResourceVersion || d.Generation != stored.Generation {
		t.Errorf("the logged status update is not the request sent: %+v, %+v", d.ObjectMeta, d.Status)
	}
}

// The events a broadcaster writes wait in the world until the fixture
// takes them, each once; what no answer carries waits as reports.
func TestEventsAndReportsAreTaken(t *testing.T) {
	w := newWorld(t, nil)
	client, _, _ := w.Clientset(reflect.TypeFor[kubernetes.Interface]())
	kube := client.(kubernetes.Interface)
	mustStart(t, w)
	_, err := kube.CoreV1().Events("default").Create(t.Context(), &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: "default", Name: "web.1"},
		InvolvedObject: corev1.ObjectReference{Kind: "Deployment", Namespace: "default", Name: "web"},
		Type:           corev1.EventTypeNormal, Reason: "Scaled", Message: "up",
	}, metav1.CreateOptions{})
	must(t, err)
	got := w.TakeEvents()
	if len(got) != 1 || got[0].Reason != "Scaled" || got[0].Object.Name != "web" {
		t.Errorf("TakeEvents: %+v; want the Scaled event of web", got)
	}
	if again := w.TakeEvents(); len(again) != 0 {
		t.Errorf("TakeEvents again: %+v; want none", again)
	}
	w.report(true, "fixture: %s", "lost")
	if r := w.TakeReports(); len(r) != 1 || r[0] != (Report{Text: "fixture: lost", Failed: true}) {
		t.Errorf("TakeReports: %+v", r)
	}
	if r := w.TakeReports(); r != nil {
		t.Errorf("TakeReports again: %+v; want none", r)
	}
}
