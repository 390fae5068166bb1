package ctrlruntime

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/ctrltest/ctrltest/fixture/adapter"
	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/conversion"
)

// Manager is a controller-runtime manager served by a fixture (an Env's
// Manager): its client, API reader, scheme, REST mapper, recorders and
// field indexer are the Env's, so a reconciler's SetupWithManager (and the
// field indexes it registers) runs unchanged. It never runs a controller's
// workers: the event sources of the controllers that SetupWithManager
// builds (builder.ControllerManagedBy(mgr)...Complete) are started either
// by [Wire], on the fixture's informers, or by [Manager.Watches], which
// tells which object events enqueue which requests.
type Manager struct {
	recorders
	env   *Env
	cache *watchCache

	mu          sync.Mutex
	controllers []manager.Runnable
	started     string // who started the sources: "Wire" or "Watches"
}

var _ manager.Manager = (*Manager)(nil)

// newManager returns a manager served by env's fixture.
func newManager(env *Env) *Manager {
	return &Manager{recorders: providerOf(recorder.Provider.GetEventRecorder, env), env: env, cache: &watchCache{env: env, informers: map[informerKey]*watchInformer{}, registered: make(chan struct{}, 1)}}
}

// Add keeps a runnable (a controller) for Watches.
func (m *Manager) Add(r manager.Runnable) error {
	if r == nil {
		return errors.New("ctrlruntime.Manager.Add: nil runnable")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.controllers = append(m.controllers, r)
	return nil
}

// hasControllers reports whether a controller was added.
func (m *Manager) hasControllers() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.controllers) > 0
}

// Elected returns a closed channel: the manager is always the leader.
func (m *Manager) Elected() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

// AddMetricsServerExtraHandler does nothing.
func (m *Manager) AddMetricsServerExtraHandler(string, http.Handler) error { return nil }

// AddHealthzCheck does nothing.
func (m *Manager) AddHealthzCheck(string, healthz.Checker) error { return nil }

// AddReadyzCheck does nothing.
func (m *Manager) AddReadyzCheck(string, healthz.Checker) error { return nil }

// Start refuses to run: a fixture's manager runs no controller (a table
// wired by Wire connects their watches and runs their reconciles; Watches
// delivers events to their sources).
func (m *Manager) Start(context.Context) error {
	return errors.New("ctrlruntime.Manager.Start: a fixture's manager does not run controllers; test their watches with env.Manager.Watches(t) and their reconciles with a fixture.Table wired by ctrlruntime.Wire")
}

// GetWebhookServer returns a webhook server that is never started.
func (m *Manager) GetWebhookServer() webhook.Server { return webhook.NewServer(webhook.Options{}) }

// GetLogger returns a logger that discards.
func (m *Manager) GetLogger() logr.Logger { return logr.Discard() }

// GetControllerOptions returns the defaults of the controllers built on
// the manager: no name validation (each test builds its controllers
// again) and a plain work queue (their workers never run: Wire and
// Watches start their event sources on queues of their own).
func (m *Manager) GetControllerOptions() config.Controller {
	return config.Controller{SkipNameValidation: ptr.To(true), UsePriorityQueue: ptr.To(false), CacheSyncTimeout: time.Hour, Logger: logr.Discard()}
}

// GetConverterRegistry returns an empty conversion registry.
func (m *Manager) GetConverterRegistry() conversion.Registry { return conversion.NewRegistry() }

// GetEventRecorderFor returns the Env's recorder.
func (m *Manager) GetEventRecorderFor(string) record.EventRecorder { return m.env.Recorder }

// recorders is the manager's recorder.Provider, embedded in Manager under
// an unexported name: GetEventRecorder's result type differs between
// controller-runtime releases (events.EventRecorder up to 0.24,
// recorder.EventRecorder, which adds AnnotatedEventf, from 0.25), so no
// method of Manager can name it; the embedded interface has the release's
// (GetEventRecorder returns the Env's EventsRecorder).
type recorders = recorder.Provider

// eventsProvider serves the Env's recorders, its GetEventRecorder's result
// type R inferred from recorder.Provider's own method (providerOf).
type eventsProvider[R any] struct{ env *Env }

// providerOf returns the Env's recorders, with R the result type of get
// (recorder.Provider.GetEventRecorder).
func providerOf[R any](_ func(recorder.Provider, string) R, env *Env) recorder.Provider {
	// The compiler cannot see that eventsProvider[R] is a Provider for
	// every R, but it is for the one inferred: the assertion holds.
	return any(eventsProvider[R]{env}).(recorder.Provider)
}

// GetEventRecorderFor returns the Env's recorder.
func (p eventsProvider[R]) GetEventRecorderFor(string) record.EventRecorder { return p.env.Recorder }

// GetEventRecorder returns the Env's events-API recorder (with
// AnnotatedEventf where R wants it, recording as Eventf does).
func (p eventsProvider[R]) GetEventRecorder(string) R {
	if r, ok := any(p.env.EventsRecorder).(R); ok {
		return r
	}
	r, _ := any(annotated{p.env.EventsRecorder}).(R)
	return r
}

// GetHTTPClient returns nil: the fixture's world is not reached over HTTP.
func (m *Manager) GetHTTPClient() *http.Client { return nil }

// GetConfig returns the fixture's REST config on a real API server, an
// empty one otherwise.
func (m *Manager) GetConfig() *rest.Config {
	if c := adapter.RESTConfig(m.env.F); c != nil {
		return c
	}
	return &rest.Config{}
}

// GetCache returns the manager's cache: reads from the informers' view,
// informers that record event handlers (see Watches).
func (m *Manager) GetCache() cache.Cache { return m.cache }

// GetScheme returns the fixture's scheme.
func (m *Manager) GetScheme() *runtime.Scheme { return m.env.Scheme }

// GetClient returns the Env's client.
func (m *Manager) GetClient() client.Client { return m.env.Client }

// GetFieldIndexer returns an indexer that registers field indexes on the
// Env's clients.
func (m *Manager) GetFieldIndexer() client.FieldIndexer { return m.cache }

// GetRESTMapper returns the fixture's REST mapper.
func (m *Manager) GetRESTMapper() meta.RESTMapper { return m.env.F.RESTMapper() }

// GetAPIReader returns the Env's API reader.
func (m *Manager) GetAPIReader() client.Reader { return m.env.APIReader }

// watchCache is the manager's cache: reads through the Env's client,
// informers that only record handlers.
type watchCache struct {
	env *Env

	mu         sync.Mutex
	informers  map[informerKey]*watchInformer
	handlers   []handlerOf   // in the order they were registered
	registered chan struct{} // signalled on each new handler
}

// informerKey names an informer of the cache: a kind, and the form of its
// objects (typed, unstructured or metadata only), as a source's object
// asks for it.
type informerKey struct {
	gvk  schema.GroupVersionKind
	form form
}

// form is the form of the objects an informer holds.
type form int

const (
	typed form = iota
	unstructuredForm
	metadataForm
)

// formOf is the form of informer obj asks for.
func formOf(obj client.Object) form {
	switch obj.(type) {
	case runtime.Unstructured:
		return unstructuredForm
	case *metav1.PartialObjectMetadata:
		return metadataForm
	}
	return typed
}

// handlerOf is one registered event handler and the informer it was
// registered on.
type handlerOf struct {
	informer *watchInformer
	handler  toolscache.ResourceEventHandler
}

var _ cache.Cache = (*watchCache)(nil)

func (c *watchCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return c.env.Client.Get(ctx, key, obj, opts...)
}

func (c *watchCache) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return c.env.Client.List(ctx, list, opts...)
}

func (c *watchCache) GetInformer(_ context.Context, obj client.Object, _ ...cache.InformerGetOption) (cache.Informer, error) {
	gvk, err := kindFor(c.env.Scheme, obj)
	if err != nil {
		return nil, err
	}
	return c.informer(informerKey{gvk, formOf(obj)})
}

func (c *watchCache) GetInformerForKind(_ context.Context, gvk schema.GroupVersionKind, _ ...cache.InformerGetOption) (cache.Informer, error) {
	return c.informer(informerKey{gvk, typed})
}

func (c *watchCache) informer(key informerKey) (*watchInformer, error) {
	mapping, err := c.env.F.RESTMapper().RESTMapping(key.gvk.GroupKind(), key.gvk.Version)
	if err != nil {
		return nil, fmt.Errorf("ctrlruntime: no registered clientset serves %v: register its clientset (fixture.WithClientset) or its types (fixture.WithTypes): %w", key.gvk, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	inf, ok := c.informers[key]
	if !ok {
		inf = &watchInformer{synced: newSynced(), cache: c, key: key, gvr: mapping.Resource}
		c.informers[key] = inf
	}
	return inf, nil
}

func (c *watchCache) RemoveInformer(_ context.Context, obj client.Object) error {
	gvk, err := kindFor(c.env.Scheme, obj)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.informers, informerKey{gvk, formOf(obj)})
	return nil
}

// Start does nothing: the fixture's informers are its own.
func (c *watchCache) Start(ctx context.Context) error { return nil }

// WaitForCacheSync blocks until ctx is done and reports false: the
// controllers of a fixture's manager start their event sources and never
// their workers (Watches reads their queues).
func (c *watchCache) WaitForCacheSync(ctx context.Context) bool {
	<-ctx.Done()
	return false
}

// IndexField registers a field index on the Env's clients.
func (c *watchCache) IndexField(_ context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	if c.env.cached == nil {
		return fmt.Errorf("ctrlruntime: IndexField(%T, %q): field indexes are served by the fixture's clients, not by a real API server's", obj, field)
	}
	if err := c.env.cached.IndexField(obj, field, extract); err != nil {
		return err
	}
	return c.env.direct.IndexField(obj, field, extract)
}

// handlersOf returns the handlers registered for gvk, in the order they
// were registered.
func (c *watchCache) handlersOf(gvk schema.GroupVersionKind) []toolscache.ResourceEventHandler {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []toolscache.ResourceEventHandler
	for _, h := range c.handlers {
		if h.informer.key.gvk == gvk {
			out = append(out, h.handler)
		}
	}
	return out
}

// registrations returns the handlers registered so far, in order.
func (c *watchCache) registrations() []handlerOf {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]handlerOf(nil), c.handlers...)
}

// watchInformer records the event handlers of a kind, in one form.
type watchInformer struct {
	synced
	cache *watchCache
	key   informerKey
	gvr   schema.GroupVersionResource
}

var _ cache.Informer = (*watchInformer)(nil)

func (i *watchInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	if h == nil {
		return nil, errors.New("ctrlruntime: nil event handler")
	}
	i.cache.mu.Lock()
	i.cache.handlers = append(i.cache.handlers, handlerOf{i, h})
	i.cache.mu.Unlock()
	select {
	case i.cache.registered <- struct{}{}:
	default:
	}
	return registration{i.synced}, nil
}

func (i *watchInformer) AddEventHandlerWithResyncPeriod(h toolscache.ResourceEventHandler, _ time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandler(h)
}

func (i *watchInformer) AddEventHandlerWithOptions(h toolscache.ResourceEventHandler, _ toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandler(h)
}

func (i *watchInformer) RemoveEventHandler(toolscache.ResourceEventHandlerRegistration) error {
	return nil
}

func (i *watchInformer) AddIndexers(toolscache.Indexers) error { return nil }
func (i *watchInformer) HasSynced() bool                       { return true }
func (i *watchInformer) IsStopped() bool                       { return false }

type registration struct{ synced }

// synced is a client-go DeltaFIFO that has synced (its initial list was
// empty). Embedded in watchInformer and registration, it gives them
// HasSynced and, on client-go 1.36 and later, HasSyncedChecker (done at
// once), whose result type client-go 1.35 does not have: ctrlruntime
// compiles on every supported minor without naming it.
type synced struct{ *toolscache.DeltaFIFO }

func newSynced() synced {
	f := toolscache.NewDeltaFIFOWithOptions(toolscache.DeltaFIFOOptions{KeyFunction: toolscache.MetaNamespaceKeyFunc})
	_ = f.Replace(nil, "") // an empty initial list: synced
	return synced{f}
}

// IndexField registers a field index (as WithIndex does), for the
// manager's field indexer.
func (c *Client) IndexField(obj client.Object, field string, extract client.IndexerFunc) error {
	if obj == nil || extract == nil || field == "" {
		return fmt.Errorf("ctrlruntime: IndexField(%T, %q): want an object, a field name and an extract function", obj, field)
	}
	gvk, err := c.kindOf(obj)
	if err != nil {
		return err
	}
	c.indexMu.Lock()
	defer c.indexMu.Unlock()
	if _, dup := c.indexes[gvk][field]; dup {
		return fmt.Errorf("ctrlruntime: the index %q of %v is registered twice", field, gvk.Kind)
	}
	if c.indexes[gvk] == nil {
		c.indexes[gvk] = map[string]client.IndexerFunc{}
	}
	c.indexes[gvk][field] = extract
	return nil
}
