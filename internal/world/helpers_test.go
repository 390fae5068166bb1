package world

import (
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/ctrltest/ctrltest/internal/resources"
)

// kubeBuilt is the kubernetes clientset's registration, built once (as
// fixture.Kube is).
var kubeBuilt = sync.OnceValues(func() (*Built, error) {
	scheme := runtime.NewScheme()
	if err := kubescheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	table, err := resources.FromClientset(reflect.TypeFor[kubernetes.Interface](), scheme)
	if err != nil {
		return nil, err
	}
	return &Built{Table: table, Scheme: scheme, Decoder: serializer.NewCodecFactory(scheme).UniversalDecoder()}, nil
})

// kubeRegistration is the registration of the kubernetes clientset.
func kubeRegistration(t testing.TB) Registration {
	t.Helper()
	b, err := kubeBuilt()
	if err != nil {
		t.Fatal(err)
	}
	return Registration{Iface: reflect.TypeFor[kubernetes.Interface](), Built: b, Parts: kubeParts{}}
}

// kubeParts are the parts of the kubernetes clientset.
type kubeParts struct{}

func (kubeParts) NewFake() Fake { return kubefake.NewSimpleClientset() }
func (kubeParts) NewFactory(c any, resync time.Duration) Factory {
	return informers.NewSharedInformerFactory(c.(kubernetes.Interface), resync)
}
func (kubeParts) NewForConfig(c *rest.Config) (any, error) { return kubernetes.NewForConfig(c) }

// newWorld makes a world of the kubernetes clientset and objs, as
// fixture.New does; mod changes its configuration first.
func newWorld(t testing.TB, mod func(*Config), objs ...runtime.Object) *World {
	t.Helper()
	var inFlight atomic.Int64
	c := Config{
		Ctx: t.Context(), Timeout: 10 * time.Second,
		Registrations: []Registration{kubeRegistration(t)},
		Objects:       objs,
		InFlight:      &inFlight,
	}
	if mod != nil {
		mod(&c)
	}
	w, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Cleanup(); err != nil {
			t.Error(err)
		}
	})
	return w
}

// must fails t with err when it is not nil.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// mustStart is Start, failing t with its error.
func mustStart(t testing.TB, w *World) bool {
	t.Helper()
	start, err := w.Start()
	must(t, err)
	return start
}

// kubeFactory is the world's informer factory of the kubernetes clientset.
func kubeFactory(t testing.TB, w *World) informers.SharedInformerFactory {
	t.Helper()
	_, factory, ok := w.Clientset(reflect.TypeFor[kubernetes.Interface]())
	if !ok {
		t.Fatal("no kubernetes clientset")
	}
	return factory.(informers.SharedInformerFactory)
}
