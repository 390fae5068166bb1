package world

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/internal/clientgo"
	"github.com/ctrltest/ctrltest/internal/resources"
	"github.com/ctrltest/ctrltest/internal/server"
)

// Server is a real API server that a fixture's clients reach (adapter.Server).
type Server = server.Server

// ClientsetServer is a Server that builds real clientsets itself
// (adapter.ClientsetServer).
type ClientsetServer = server.ClientsetServer

// serverBackend is the backend of WithServer: internal/server, on the
// world as its Host.
type serverBackend struct {
	w *World
	b *server.Backend
}

func newServerBackend(w *World, s Server) (*serverBackend, error) {
	b, err := server.New(s, serverHost{w}, w.ctx, w.timeout)
	if err != nil {
		return nil, err
	}
	return &serverBackend{w: w, b: b}, nil
}

func (s *serverBackend) newClientset(p Registration) (*clientset, error) {
	client, store, err := s.b.NewClientset(server.Clientset{Iface: p.Iface, NewForConfig: p.Parts.NewForConfig, Table: p.Built.Table, Scheme: p.Built.Scheme})
	if err != nil {
		return nil, err
	}
	return &clientset{
		iface:   p.Iface,
		client:  client,
		factory: p.Parts.NewFactory(client, s.w.factoryResync()),
		table:   p.Built.Table,
		scheme:  p.Built.Scheme,
		store:   store,
	}, nil
}

func (s *serverBackend) seed(seeds []seed) error {
	out := make([]server.Seed, len(seeds))
	for i, sd := range seeds {
		out[i] = server.Seed{Index: sd.index, Obj: sd.obj, Meta: sd.meta, Info: sd.in}
	}
	return s.b.Seed(out)
}

func (s *serverBackend) worldKey(key string) (string, error)  { return s.b.WorldKey(key) }
func (s *serverBackend) awaitSeeds(ctx context.Context) error { return s.b.AwaitSeeds(ctx) }
func (s *serverBackend) cleanup() error                       { return s.b.Cleanup() }

func (s *serverBackend) worldName(in *resources.Info, ns, name string) (string, string) {
	return s.b.WorldName(in, ns, name)
}
func (s *serverBackend) view(obj runtime.Object) runtime.Object { return s.b.View(obj) }
func (s *serverBackend) viewText(text string) string            { return s.b.ViewText(text) }
func (s *serverBackend) viewError(err error) error              { return s.b.ViewError(err) }
func (s *serverBackend) owns(gvr schema.GroupVersionResource, key string) bool {
	return s.b.Owns(gvr, key)
}
func (s *serverBackend) restConfig() *rest.Config { return s.b.RESTConfig() }

// serve is never called: the server has no fakes.
func (s *serverBackend) serve(*clientset, int, clienttesting.Action) (bool, runtime.Object, error) {
	return false, nil, nil
}

// changes: every write to the server counts as a change.
func (s *serverBackend) changes() (int, bool)               { return 0, false }
func (s *serverBackend) traits() traits                     { return traits{servesSubresources: true, informers: true} }
func (s *serverBackend) revision() int64                    { return 0 }
func (s *serverBackend) observes(clienttesting.Action) bool { return false }

// serverHost is the world as the server backend's Host.
type serverHost struct{ w *World }

func (h serverHost) Record(a actions.Action) {
	w := h.w
	in, cs := w.lookupGVR(a.Resource)
	w.noteEventWrite(a)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.log = append(w.log, a)
	if cs == nil || !a.IsWrite() {
		return
	}
	w.touchLocked(in.GVR, cs)
	w.markDirtyLocked(a, in.GVR)
}

func (h serverHost) Logged() int { return h.w.Logged() }

func (h serverHost) Refused(index int, verb, name string, named bool, answer error) {
	w := h.w
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := index; i < len(w.log); i++ {
		a := w.log[i]
		if a.Verb == verb && (!named || a.Name == name || verb == actions.VerbCreate) {
			if w.refused == nil {
				w.refused = map[int]error{}
			}
			w.refused[i] = answer
			return
		}
	}
}

func (h serverHost) Redundant(index int, name string) {
	w := h.w
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := index; i < len(w.log); i++ {
		if a := w.log[i]; (a.Verb == actions.VerbUpdate || a.Verb == actions.VerbPatch) && a.Name == name {
			if w.redundant == nil {
				w.redundant = map[int]bool{}
			}
			w.redundant[i] = true
			return
		}
	}
}

func (h serverHost) SeedNamed(apiVersion, kind, namespace, name string) (int, bool) {
	i, _, ok := h.w.seedNamed(apiVersion, kind, namespace, name)
	return i, ok
}

func (h serverHost) Touched() []schema.GroupVersionResource { return h.w.touchedSorted() }

func (h serverHost) StartedInformer(gvr schema.GroupVersionResource) (cache.SharedIndexInformer, bool) {
	_, cs := h.w.lookupGVR(gvr)
	if cs == nil {
		return nil, false
	}
	return cs.startedInformer(gvr)
}

// startedInformer returns the informer of gvr that the controller asked
// the factory for, when it was started (and so synced); never one made
// here.
func (cs *clientset) startedInformer(gvr schema.GroupVersionResource) (cache.SharedIndexInformer, bool) {
	var inf cache.SharedIndexInformer
	if requested, generated := clientgo.FactoryInformers(cs.factory); generated {
		if typ := cs.typeOf(gvr); typ != nil {
			inf = requested[typ]
		}
	} else {
		cs.informersMu.Lock()
		inf = cs.informers[gvr]
		cs.informersMu.Unlock()
	}
	if inf == nil || !inf.HasSynced() {
		return nil, false
	}
	return inf, true
}

// lookupGVR finds the type information and clientset of a resource.
func (w *World) lookupGVR(gvr schema.GroupVersionResource) (*resources.Info, *clientset) {
	for _, cs := range w.clientsets {
		if in, ok := cs.table.ForGVR(gvr); ok {
			return in, cs
		}
	}
	return nil, nil
}

// sortedView maps objects back to the fixture's view and sorts them by
// namespace and name.
func (w *World) sortedView(objs []runtime.Object) []runtime.Object {
	for i := range objs {
		objs[i] = w.backend.view(objs[i])
	}
	sort.Slice(objs, func(i, j int) bool {
		a, _ := meta.Accessor(objs[i])
		b, _ := meta.Accessor(objs[j])
		return objectKey(a) < objectKey(b)
	})
	return objs
}

// AwaitCaches waits until the started informers synced and, on a server,
// until they hold the seed objects as the seeding left them (awaitSeeds).
func (w *World) AwaitCaches() error {
	ctx, cancel := context.WithTimeout(w.ctx, w.timeout)
	defer cancel()
	for _, cs := range w.clientsets {
		clientgo.AwaitStarted(ctx, cs.factory) // before WaitForCacheSync, which may poll slowly
		for typ, ok := range cs.factory.WaitForCacheSync(ctx.Done()) {
			if !ok {
				return fmt.Errorf("fixture: the informer for %v did not sync within %v", typ, w.timeout)
			}
		}
	}
	return w.backend.awaitSeeds(ctx)
}

// seed is one seed object with what Start learnt about it.
type seed struct {
	index int
	obj   runtime.Object
	meta  metav1.Object
	in    *resources.Info
	cs    *clientset
}

func objectKey(m metav1.Object) string {
	if m.GetNamespace() == "" {
		return m.GetName()
	}
	return m.GetNamespace() + "/" + m.GetName()
}
