package server

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/actions"
)

// Everything the server gives back is mapped to the fixture's namespaces
// and the seeds' uids.
func TestServerMapping(t *testing.T) {
	host := &fakeHost{}
	s := newBackend(t, host)
	sns, isNew := s.serverNamespace("default")
	if !isNew || !strings.HasPrefix(sns, s.prefix+"-") || !strings.HasSuffix(sns, "-default") {
		t.Errorf("serverNamespace(default) = %q, %v", sns, isNew)
	}
	if again, isNew := s.serverNamespace("default"); again != sns || isNew {
		t.Errorf("serverNamespace(default) again = %q, %v; want %q, false", again, isNew, sns)
	}
	long := strings.Repeat("n", 63)
	lsns, _ := s.serverNamespace(long)
	other, _ := s.serverNamespace(strings.Repeat("n", 62) + "m")
	if len(lsns) > 63 || lsns == other {
		t.Errorf("long namespaces map to %q and %q; want distinct names of at most 63 bytes", lsns, other)
	}
	if other := newBackend(t, host).prefix; other == s.prefix {
		t.Errorf("two fixtures share the namespace prefix %q", other)
	}

	s.fromServer["server-uid"] = "seed-uid"
	if got := s.ViewText(sns + "/web"); got != "default/web" {
		t.Errorf("viewText = %q", got)
	}
	if got := s.ViewText("elsewhere/web"); got != "elsewhere/web" {
		t.Errorf("viewText of a namespace not the fixture's = %q", got)
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: sns, Name: "web", UID: "server-uid",
		OwnerReferences: []metav1.OwnerReference{{Kind: "Foo", Name: "test", UID: "server-uid"}},
		Labels:          map[string]string{"from": sns}}}
	got := s.View(d).(*appsv1.Deployment)
	if got.Namespace != "default" || got.UID != "seed-uid" || got.OwnerReferences[0].UID != "seed-uid" || got.Labels["from"] != "default" {
		t.Errorf("view = %+v", got.ObjectMeta)
	}
	if d.Namespace != sns {
		t.Error("view changed its argument")
	}

	notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "web")
	wrapped := errors.Join(errors.New("namespace "+sns), notFound)
	err := s.ViewError(wrapped)
	if strings.Contains(err.Error(), sns) || !strings.Contains(err.Error(), "namespace default") {
		t.Errorf("viewError = %q", err)
	}
	if !apierrors.IsNotFound(err) || !errors.Is(err, notFound) {
		t.Errorf("viewError hid the error it wraps: %v", err)
	}

	s.record(actions.Action{Verb: actions.VerbCreate, Resource: appsv1.SchemeGroupVersion.WithResource("deployments"),
		Namespace: sns, Name: "web", Object: d})
	rec := host.log[0]
	if rec.Namespace != "default" || rec.Object.(*appsv1.Deployment).Namespace != "default" {
		t.Errorf("recorded %s with object namespace %q", rec, rec.Object.(*appsv1.Deployment).Namespace)
	}
}

var (
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	configMapsGVR  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

func deploymentAt(ns, name, rv string) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
}

// unreachable is a Server no request reaches: what is tested here happens
// before any request.
type unreachable struct{}

func (unreachable) ClientConfig(func(actions.Action)) *rest.Config {
	return &rest.Config{Host: "http://127.0.0.1:1"}
}

func newBackend(t *testing.T, host Host) *Backend {
	t.Helper()
	b, err := New(unreachable{}, host, t.Context(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fakeHost is a world of a request log only.
type fakeHost struct {
	mu        sync.Mutex
	log       []actions.Action
	redundant map[int]bool
}

func (h *fakeHost) Record(a actions.Action) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, a)
}

func (h *fakeHost) Logged() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.log)
}

func (h *fakeHost) Refused(int, string, string, bool, error) {}

func (h *fakeHost) Redundant(index int, name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := index; i < len(h.log); i++ {
		if a := h.log[i]; (a.Verb == actions.VerbUpdate || a.Verb == actions.VerbPatch) && a.Name == name {
			if h.redundant == nil {
				h.redundant = map[int]bool{}
			}
			h.redundant[i] = true
			return
		}
	}
}

func (h *fakeHost) SeedNamed(string, string, string, string) (int, bool) { return 0, false }
func (h *fakeHost) Touched() []schema.GroupVersionResource               { return nil }
func (h *fakeHost) StartedInformer(schema.GroupVersionResource) (cache.SharedIndexInformer, bool) {
	return nil, false
}
