package world

import (
	"errors"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrltest/ctrltest/actions"
)

// Everything the server gives back is mapped to the fixture's namespaces
// and the seeds' uids.
func TestServerMapping(t *testing.T) {
	server := func(c *Config) { c.Server = unreachable{} }
	w := newWorld(t, server)
	s := w.backend.(*serverState)
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
	if other := newWorld(t, server).backend.(*serverState).prefix; other == s.prefix {
		t.Errorf("two fixtures share the namespace prefix %q", other)
	}

	s.fromServer["server-uid"] = "seed-uid"
	if got := s.viewText(sns + "/web"); got != "default/web" {
		t.Errorf("viewText = %q", got)
	}
	if got := s.viewText("elsewhere/web"); got != "elsewhere/web" {
		t.Errorf("viewText of a namespace not the fixture's = %q", got)
	}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: sns, Name: "web", UID: "server-uid",
		OwnerReferences: []metav1.OwnerReference{{Kind: "Foo", Name: "test", UID: "server-uid"}},
		Labels:          map[string]string{"from": sns}}}
	got := s.view(d).(*appsv1.Deployment)
	if got.Namespace != "default" || got.UID != "seed-uid" || got.OwnerReferences[0].UID != "seed-uid" || got.Labels["from"] != "default" {
		t.Errorf("view = %+v", got.ObjectMeta)
	}
	if d.Namespace != sns {
		t.Error("view changed its argument")
	}

	notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "web")
	wrapped := errors.Join(errors.New("namespace "+sns), notFound)
	err := s.viewError(wrapped)
	if strings.Contains(err.Error(), sns) || !strings.Contains(err.Error(), "namespace default") {
		t.Errorf("viewError = %q", err)
	}
	if !apierrors.IsNotFound(err) || !errors.Is(err, notFound) {
		t.Errorf("viewError hid the error it wraps: %v", err)
	}

	s.record(actions.Action{Verb: actions.VerbCreate, Resource: appsv1.SchemeGroupVersion.WithResource("deployments"),
		Namespace: sns, Name: "web", Object: d})
	rec := w.Requests()[0]
	if rec.Namespace != "default" || rec.Object.(*appsv1.Deployment).Namespace != "default" {
		t.Errorf("recorded %s with object namespace %q", rec, rec.Object.(*appsv1.Deployment).Namespace)
	}
}
