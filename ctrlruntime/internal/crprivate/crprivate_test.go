package crprivate

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
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
// or retypes the field this package reads: upgrade this package with it.
func TestFieldsRead(t *testing.T) {
	typ := reflect.TypeOf(newController(t))
	if typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		t.Fatalf("controller.NewUnmanaged returns %v; want a pointer to a struct", typ)
	}
	st := typ.Elem()
	f, ok := st.FieldByName(fieldStartWatches)
	if !ok {
		t.Fatalf("%v has no field %s: controller-runtime moved it", st, fieldStartWatches)
	}
	if f.Type != reflect.TypeFor[[]source.TypedSource[reconcile.Request]]() {
		t.Errorf("%v.%s is a %v now: controller-runtime changed it", st, fieldStartWatches, f.Type)
	}
}

// The read works on a controller with watches, in their order.
func TestSources(t *testing.T) {
	c := newController(t)
	if srcs, _, ok := Sources(c); !ok || len(srcs) != 0 {
		t.Errorf("Sources of a controller without watches = %v, %v", srcs, ok)
	}
	if _, _, ok := Sources(struct{}{}); ok {
		t.Errorf("Sources of a struct value reported a controller")
	}
	fn := source.Func(func(context.Context, workqueue.TypedRateLimitingInterface[reconcile.Request]) error { return nil })
	kind := source.Kind[*corev1.Pod](nil, &corev1.Pod{}, &handler.TypedEnqueueRequestForObject[*corev1.Pod]{})
	for _, s := range []source.Source{fn, kind} {
		if err := c.Watch(s); err != nil {
			t.Fatal(err)
		}
	}
	srcs, kinds, ok := Sources(c)
	if !ok || len(srcs) != 2 || !reflect.DeepEqual(kinds, []bool{false, true}) {
		t.Fatalf("Sources = %d source(s), kinds %v, %v; want 2, [false true]", len(srcs), kinds, ok)
	}
	if srcs[1] != kind {
		t.Errorf("Sources[1] is not the Kind source added")
	}
}
