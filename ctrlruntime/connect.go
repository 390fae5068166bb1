package ctrlruntime

import (
	"fmt"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/fixture/adapter"
)

// connect starts the event sources of the controllers added to m on the
// fixture's informers, as a manager's cache starts them on a cluster's:
// every handler a source registers (For, Owns, Watches, with their
// predicates) is registered on the fixture's informer of its kind and
// form (typed, unstructured, metadata only), and the requests it enqueues
// go to the fixture's work-queue spy (fixture.Queue[string]) as keys
// ("namespace/name", see Key). So the fixture calls them as it delivers
// the world's changes, and its checks see what re-queues a key. On a real
// API server (adapter.WithServer) nothing is connected. The handlers get
// the informers' objects (the initial list) before connect returns.
func (m *Manager) connect(f *fixture.Fixture) error {
	if adapter.RESTConfig(f) != nil {
		return nil
	}
	q := requestQueue{fixture.Queue[string](f)}
	err := m.startSources(f.T(), "Wire", func() workqueue.TypedRateLimitingInterface[reconcile.Request] { return q }, func(h handlerOf) error {
		k := h.informer.key
		switch k.form {
		case unstructuredForm:
			if _, err := f.DynamicInformers().ForResource(h.informer.gvr).Informer().AddEventHandler(h.handler); err != nil {
				return err
			}
		case metadataForm:
			if _, err := f.MetadataInformers().ForResource(h.informer.gvr).Informer().AddEventHandler(h.handler); err != nil {
				return err
			}
		default:
			typedInformer, err := adapter.Informer(f, h.informer.gvr)
			if err != nil {
				return fmt.Errorf("the informer of %v: %w", k.gvk, err)
			}
			if _, err := typedInformer.AddEventHandler(h.handler); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The informers may hold the seeds already (Wire's client reads
	// them): their handlers get them now, as a started informer gives its
	// store to a handler added late, not after the row's first sync.
	f.Refresh()
	return nil
}

// requestQueue is a controller's work queue on the fixture's spy: each
// request is its key ("namespace/name").
type requestQueue struct {
	spy workqueue.TypedRateLimitingInterface[string]
}

var _ workqueue.TypedRateLimitingInterface[reconcile.Request] = requestQueue{}

func (q requestQueue) Add(r reconcile.Request) { q.spy.Add(Key(r)) }
func (q requestQueue) Len() int                { return q.spy.Len() }
func (q requestQueue) Get() (reconcile.Request, bool) {
	k, shutdown := q.spy.Get()
	return requestOf(k), shutdown
}
func (q requestQueue) Done(r reconcile.Request) { q.spy.Done(Key(r)) }

// ShutDown does nothing: the spy is the fixture's, shut down when its
// test ends.
func (q requestQueue) ShutDown() {}

// ShutDownWithDrain does nothing, as ShutDown.
func (q requestQueue) ShutDownWithDrain()                            {}
func (q requestQueue) ShuttingDown() bool                            { return q.spy.ShuttingDown() }
func (q requestQueue) AddAfter(r reconcile.Request, d time.Duration) { q.spy.AddAfter(Key(r), d) }
func (q requestQueue) AddRateLimited(r reconcile.Request)            { q.spy.AddRateLimited(Key(r)) }
func (q requestQueue) Forget(r reconcile.Request)                    { q.spy.Forget(Key(r)) }
func (q requestQueue) NumRequeues(r reconcile.Request) int           { return q.spy.NumRequeues(Key(r)) }
