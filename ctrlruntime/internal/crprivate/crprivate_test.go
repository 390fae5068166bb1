package crprivate

import (
	"context"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// newController makes controller-runtime's controller as a builder does.
func newController(t *testing.T) controller.Controller {
	t.Helper()
	c, err := controller.NewUnmanaged("test", controller.Options{
		Reconciler:         reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }),
		SkipNameValidation: func() *bool { b := true; return &b }(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFieldsRead fails, naming the field, when controller-runtime moves
// or retypes a field this package reads: upgrade this package with it.
func TestFieldsRead(t *testing.T) {
	typ := reflect.TypeOf(newController(t))
	if typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		t.Fatalf("controller.NewUnmanaged returns %v; want a pointer to a struct", typ)
	}
	st := typ.Elem()
	for name, check := range map[string]func(reflect.Type) bool{
		fieldStartWatches: func(ft reflect.Type) bool { return ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Interface },
		fieldQueue: func(ft reflect.Type) bool {
			return ft.Implements(reflect.TypeFor[workqueue.TypedInterface[reconcile.Request]]())
		},
		fieldNewQueue: func(ft reflect.Type) bool { return ft == reflect.TypeFor[NewQueueFunc]() },
	} {
		f, ok := st.FieldByName(name)
		if !ok {
			t.Errorf("%v has no field %s: controller-runtime moved it", st, name)
			continue
		}
		if !check(f.Type) {
			t.Errorf("%v.%s is a %v now: controller-runtime changed it", st, name, f.Type)
		}
	}
}

// The reads work on a controller with a watch.
func TestReads(t *testing.T) {
	c := newController(t)
	if n, ok := KindSources(c); !ok || n != 0 {
		t.Errorf("KindSources of a controller without watches = %d, %v", n, ok)
	}
	if _, ok := KindSources(struct{}{}); ok {
		t.Errorf("KindSources of a struct value reported a controller")
	}
	var made atomic.Bool
	if !SetNewQueue(c, func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		made.Store(true)
		return workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	}) {
		t.Fatal("SetNewQueue refused controller-runtime's controller")
	}
	if _, ok := Queue(c); ok {
		t.Errorf("Queue of a controller that has not started reported one")
	}
	// A source's Start gets the queue once the controller made it: the
	// field is read after that (the controller set it first).
	got := make(chan workqueue.TypedRateLimitingInterface[reconcile.Request], 1)
	if err := c.Watch(source.Func(func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		got <- q
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); _ = c.Start(ctx) }()
	defer func() { cancel(); <-done }()
	select {
	case q := <-got:
		if read, ok := Queue(c); !ok || read != q || !made.Load() {
			t.Errorf("Queue of the started controller = %v, %v; want the queue its sources got, made by the NewQueue set (%v)", read, ok, made.Load())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the controller did not start its source within 10s")
	}
}
