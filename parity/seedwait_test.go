package parity

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/fixture/adapter"
)

// staleServer is a server whose informers start from a world older than
// the seeding, as a kube-apiserver's watch cache under load can give them:
// their first list is of the server as it was at resourceVersion rv
// (before the seed objects were written), and their watch, which brings
// the seed writes, is held back for delay.
type staleServer struct {
	*Server
	rv    string
	delay time.Duration
}

func (s staleServer) ClientConfig(record func(actions.Action)) *rest.Config {
	config := s.Server.ClientConfig(record)
	config.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &staleTransport{rt, s.rv, s.delay} })
	return config
}

type staleTransport struct {
	rt    http.RoundTripper
	rv    string
	delay time.Duration
}

func (t *staleTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	q := req.URL.Query()
	if req.Method != http.MethodGet {
		return t.rt.RoundTrip(req)
	}
	switch {
	case q.Get("sendInitialEvents") == "true":
		// The informer falls back to a list and a watch.
		return nil, errors.New("staleTransport: no watch-list here")
	case q.Get("watch") == "true" || q.Get("watch") == "1":
		select {
		case <-time.After(t.delay):
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	case q.Get("resourceVersion") == "0":
		q.Set("resourceVersion", t.rv)
		q.Set("resourceVersionMatch", string(metav1.ResourceVersionMatchExact))
		req = req.Clone(req.Context())
		req.URL.RawQuery = q.Encode()
	}
	return t.rt.RoundTrip(req)
}

// newStaleServer starts a server and returns it as staleServer, its
// informers starting from the world as it is now.
func newStaleServer(t *testing.T, delay time.Duration) staleServer {
	t.Helper()
	s, err := Start(t.Context(), binDir(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	client, err := kubernetes.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	list, err := client.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return staleServer{Server: s, rv: list.ResourceVersion, delay: delay}
}

// seedWorld is a Deployment whose seeding takes two writes (its creation,
// then its status) and a ConfigMap.
func seedWorld() []fixture.Option {
	labels := map[string]string{"app": "web"}
	web := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1},
	}
	cfg := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "cfg"}, Data: map[string]string{"k": "v"}}
	return []fixture.Option{fixture.WithObjects(web, cfg)}
}

// On a server, the sync sees the seeded world in its listers, at the
// versions the server holds, even when the informers' first list is older
// than the seeding (the fixture waits for them to catch up).
func TestSyncSeesTheSeededWorld(t *testing.T) {
	srv := newStaleServer(t, time.Second)
	f := fixture.New(t, append(seedWorld(), adapter.WithServer(srv))...)
	deployments := f.KubeInformers().Apps().V1().Deployments().Lister()
	configMaps := f.KubeInformers().Core().V1().ConfigMaps().Lister()
	sync := func(ctx context.Context, key string) error {
		ns, name, _ := strings.Cut(key, "/")
		cached, err := deployments.Deployments(ns).Get(name)
		if err != nil {
			return fmt.Errorf("the lister: %v", err)
		}
		live, err := f.Kube().AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cached.ResourceVersion != live.ResourceVersion || cached.Status.ObservedGeneration != 1 {
			return fmt.Errorf("the lister has resourceVersion %s (observedGeneration %d); the server, %s", cached.ResourceVersion, cached.Status.ObservedGeneration, live.ResourceVersion)
		}
		if _, err := configMaps.ConfigMaps(ns).Get("cfg"); err != nil {
			return fmt.Errorf("the lister: %v", err)
		}
		return nil
	}
	if res := fixture.Sync(f, sync, "default/web"); res.Err != nil {
		t.Errorf("the sync saw a stale world: %v", res.Err)
	}
}

// Informers that do not catch up within the fixture's timeout fail the
// test, naming each informer and what it lacks.
func TestSeedWaitFailsClearly(t *testing.T) {
	srv := newStaleServer(t, time.Minute)
	st := &sideTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f := fixture.New(st, append(seedWorld(), adapter.WithServer(srv), fixture.WithTimeout(500*time.Millisecond))...)
		_ = f.KubeInformers().Apps().V1().Deployments().Lister()
		_ = f.KubeInformers().Core().V1().ConfigMaps().Lister()
		f.Start()
	}()
	<-done
	got := st.failures()
	for _, want := range []string{
		"fixture: the informers did not catch up with the seed objects within 500ms (the sync would see an older world):\n",
		"\n\tconfigmaps informer: ConfigMap default/cfg is missing (want resourceVersion ",
		"\n\tdeployments.apps informer: Deployment default/web is missing (want resourceVersion ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the failure does not contain %q:\n%s", want, got)
		}
	}
}
