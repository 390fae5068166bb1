package ctrlruntime

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/ctrltest/ctrltest/ctrlruntime/internal/crprivate"
)

// Watches delivers object events to the event sources of the controllers
// built on a Manager (For, Owns, Watches with any handler, predicates and
// event filters, as SetupWithManager declares them) and returns the
// requests they enqueue: synchronously, without sleeps, and without
// running a reconcile. Make it with [Manager.Watches].
type Watches struct {
	t      testing.TB
	m      *Manager
	queues []workqueue.TypedRateLimitingInterface[reconcile.Request]
}

// Watches starts the event sources of the controllers added to m so far
// on work queues of its own (their workers never run) and returns what
// delivers events to them. The fixture's world is seeded first (map
// functions may read it through the manager's client). The sources stop
// when the test ends. A controller that is not controller-runtime's, or
// whose sources do not register within 10 seconds, fails the test, as
// does a manager whose sources were started already (by Wire or an
// earlier Watches).
func (m *Manager) Watches(t testing.TB) *Watches {
	t.Helper()
	m.env.F.Start()
	w := &Watches{t: t, m: m}
	err := m.startSources(t, "Watches", func() workqueue.TypedRateLimitingInterface[reconcile.Request] {
		q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request](), workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{})
		w.queues = append(w.queues, q)
		t.Cleanup(q.ShutDown)
		return q
	}, nil)
	if err != nil {
		t.Fatalf("ctrlruntime.Manager.Watches: %v", err)
	}
	return w
}

// startSources starts the event sources of m's controllers, in the order
// they were added and declared, each controller's on the queue newQueue
// makes for it: its Kind sources register their event handlers on m's
// cache, one at a time (the handlers' order is the sources'), and onHandler,
// when not nil, is told of each. The sources stop when t ends. who names
// the caller, for a manager started twice.
func (m *Manager) startSources(t testing.TB, who string, newQueue func() workqueue.TypedRateLimitingInterface[reconcile.Request], onHandler func(handlerOf) error) error {
	m.mu.Lock()
	ctrls := append([]manager.Runnable(nil), m.controllers...)
	if m.started != "" {
		m.mu.Unlock()
		return fmt.Errorf("the event sources of the manager's controllers were started already (by %s); a manager's sources start once", m.started)
	}
	m.started = who
	m.mu.Unlock()
	if len(ctrls) == 0 {
		return errors.New("no controller was added to the manager; call the reconciler's SetupWithManager(env.Manager) (builder.ControllerManagedBy(mgr)...Complete(r)) first")
	}
	type ctrlSources struct {
		srcs []source.TypedSource[reconcile.Request]
		kind []bool
	}
	all := make([]ctrlSources, len(ctrls))
	for i, c := range ctrls {
		srcs, kind, ok := crprivate.Sources(c)
		if !ok {
			return fmt.Errorf("%T is not a controller-runtime controller; only controllers built with builder.ControllerManagedBy or controller.New are supported", c)
		}
		all[i] = ctrlSources{srcs, kind}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for _, c := range all {
		q := newQueue()
		for i, src := range c.srcs {
			before := len(m.cache.registrations())
			if err := src.Start(ctx, q); err != nil {
				return fmt.Errorf("starting the event source %v: %w", src, err)
			}
			if !c.kind[i] {
				continue
			}
			h, err := m.awaitHandler(before, src)
			if err != nil {
				return err
			}
			if onHandler != nil {
				if err := onHandler(h); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// awaitHandler waits until a handler beyond the first before registered
// on the cache (a Kind source registers its handler on a goroutine of its
// own) and returns it.
func (m *Manager) awaitHandler(before int, src source.TypedSource[reconcile.Request]) (handlerOf, error) {
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		if hs := m.cache.registrations(); len(hs) > before {
			return hs[before], nil
		}
		select {
		case <-m.cache.registered:
		case <-deadline.C:
			return handlerOf{}, fmt.Errorf("the event source %v registered no event handler within 10s (a kind no registration serves?)", src)
		}
	}
}

// Create delivers an add event of obj and returns the requests enqueued,
// sorted.
func (w *Watches) Create(obj client.Object) []reconcile.Request {
	w.t.Helper()
	for _, h := range w.handlers(obj) {
		h.OnAdd(obj.DeepCopyObject(), false)
	}
	return w.drain()
}

// Update delivers an update event from old to new and returns the
// requests enqueued, sorted.
func (w *Watches) Update(old, new client.Object) []reconcile.Request {
	w.t.Helper()
	for _, h := range w.handlers(new) {
		h.OnUpdate(old.DeepCopyObject(), new.DeepCopyObject())
	}
	return w.drain()
}

// Delete delivers a delete event of obj and returns the requests
// enqueued, sorted.
func (w *Watches) Delete(obj client.Object) []reconcile.Request {
	w.t.Helper()
	for _, h := range w.handlers(obj) {
		h.OnDelete(obj.DeepCopyObject())
	}
	return w.drain()
}

func (w *Watches) handlers(obj client.Object) []interface {
	OnAdd(obj any, isInInitialList bool)
	OnUpdate(oldObj, newObj any)
	OnDelete(obj any)
} {
	w.t.Helper()
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		w.t.Fatalf("ctrlruntime.Watches: nil object")
	}
	gvk, err := kindFor(w.m.env.Scheme, obj)
	if err != nil {
		w.t.Fatalf("ctrlruntime.Watches: %v", err)
	}
	hs := w.m.cache.handlersOf(gvk)
	out := make([]interface {
		OnAdd(obj any, isInInitialList bool)
		OnUpdate(oldObj, newObj any)
		OnDelete(obj any)
	}, len(hs))
	for i, h := range hs {
		out[i] = h
	}
	return out
}

// drain takes every request the handlers enqueued.
func (w *Watches) drain() []reconcile.Request {
	var out []reconcile.Request
	for _, q := range w.queues {
		for q.Len() > 0 {
			req, shutdown := q.Get()
			if shutdown {
				break
			}
			q.Done(req)
			out = append(out, req)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// String names the watched kinds, for failure messages.
func (w *Watches) String() string {
	w.m.cache.mu.Lock()
	defer w.m.cache.mu.Unlock()
	n := map[string]int{}
	for _, h := range w.m.cache.handlers {
		n[h.informer.key.gvk.Kind]++
	}
	var kinds []string
	for kind, c := range n {
		kinds = append(kinds, fmt.Sprintf("%s (%d handler(s))", kind, c))
	}
	sort.Strings(kinds)
	return fmt.Sprint(kinds)
}
