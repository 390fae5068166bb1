package ctrlruntime

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

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
	queues []workqueue.TypedInterface[reconcile.Request]
}

// Watches starts the event sources of the controllers added to m so far
// (their workers never run) and returns what delivers events to them. The
// fixture's world is seeded first (map functions may read it through the
// manager's client). The sources stop when the test ends. A controller
// that is not controller-runtime's, or whose sources do not register
// within the fixture's timeout, fails the test.
func (m *Manager) Watches(t testing.TB) *Watches {
	t.Helper()
	m.env.F.Start()
	m.mu.Lock()
	ctrls := append([]any(nil), anySlice(m.controllers)...)
	m.mu.Unlock()
	if len(ctrls) == 0 {
		t.Fatalf("ctrlruntime.Manager.Watches: no controller was added to the manager; call the reconciler's SetupWithManager(mgr) (builder.ControllerManagedBy(mgr)...Complete(r)) first")
	}
	want := 0
	for _, c := range ctrls {
		n, ok := crprivate.KindSources(c)
		if !ok {
			t.Fatalf("ctrlruntime.Manager.Watches: %T is not a controller-runtime controller; only controllers built with builder.ControllerManagedBy or controller.New are supported", c)
		}
		want += n
	}
	for _, c := range ctrls {
		plainQueue(c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, c := range ctrls {
		r := c.(interface{ Start(context.Context) error })
		wg.Go(func() { _ = r.Start(ctx) })
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		m.cache.mu.Lock()
		got := m.cache.handlers
		m.cache.mu.Unlock()
		if got >= want {
			break
		}
		select {
		case <-m.cache.registered:
		case <-deadline.C:
			t.Fatalf("ctrlruntime.Manager.Watches: %d of the controllers' %d event sources registered within 10s (a kind no registration serves?)", got, want)
		}
	}
	w := &Watches{t: t, m: m}
	for _, c := range ctrls {
		q, ok := crprivate.Queue(c)
		if !ok {
			t.Fatalf("ctrlruntime.Manager.Watches: the queue of %T is not readable", c)
		}
		w.queues = append(w.queues, q)
	}
	return w
}

func anySlice[T any](s []T) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
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
	var kinds []string
	for gvk, inf := range w.m.cache.informers {
		kinds = append(kinds, fmt.Sprintf("%s (%d handler(s))", gvk.Kind, len(inf.handlers)))
	}
	sort.Strings(kinds)
	return fmt.Sprint(kinds)
}

// plainQueue gives a controller a work queue without metrics (whose
// goroutine would outlive the test by up to half a second) and without
// priorities (whose adds are asynchronous): what Watches reads. The
// controller's workers never run, so the queue's kind is not observable
// otherwise.
func plainQueue(ctrl any) {
	crprivate.SetNewQueue(ctrl, func(_ string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		return workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{})
	})
}
