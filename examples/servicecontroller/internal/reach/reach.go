package reach

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"unsafe" // and go:linkname

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/cloud-provider/controllers/service"
)

// Queue is the type of the controller's work queue fields.
type Queue = workqueue.TypedRateLimitingInterface[string]

// Field names the field Name of struct S, of Go type T.
type Field[S, T any] struct{ Name string }

// String names the field as a reader of the upstream source would.
func (f Field[S, T]) String() string {
	return fmt.Sprintf("%v.%s (%v)", reflect.TypeFor[S](), f.Name, reflect.TypeFor[T]())
}

// Check returns an error naming the field when S has no field Name or the
// field's type is not exactly T.
func (f Field[S, T]) Check() error {
	s := reflect.TypeFor[S]()
	sf, ok := s.FieldByName(f.Name)
	if !ok {
		return fmt.Errorf("reach: %v has no field %q any more; find where it moved in the upstream source", s, f.Name)
	}
	if want := reflect.TypeFor[T](); sf.Type != want {
		return fmt.Errorf("reach: %v.%s is a %v now, not a %v", s, f.Name, sf.Type, want)
	}
	return nil
}

// Of returns a pointer to the field of *s. It fails t at once, naming the
// field, when Check fails.
func (f Field[S, T]) Of(t testing.TB, s *S) *T {
	t.Helper()
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(s).Elem().FieldByName(f.Name)
	return (*T)(unsafe.Pointer(v.UnsafeAddr()))
}

// The fields of service.Controller the example reaches.
var (
	ServiceQueue = Field[service.Controller, Queue]{"serviceQueue"}
	NodeQueue    = Field[service.Controller, Queue]{"nodeQueue"}
	Broadcaster  = Field[service.Controller, record.EventBroadcaster]{"eventBroadcaster"}
	Recorder     = Field[service.Controller, record.EventRecorder]{"eventRecorder"}
)

// Checker is a Field.
type Checker interface {
	Check() error
	String() string
}

// Fields are every field above, for the test.
var Fields = []Checker{ServiceQueue, NodeQueue, Broadcaster, Recorder}

//go:linkname syncService k8s.io/cloud-provider/controllers/service.(*Controller).syncService
func syncService(c *service.Controller, ctx context.Context, key string) error

// Sync returns c's sync method (c.syncService), the handler its workers
// call for each key of the Service queue.
func Sync(c *service.Controller) func(ctx context.Context, key string) error {
	return func(ctx context.Context, key string) error { return syncService(c, ctx, key) }
}

//go:linkname syncNodes k8s.io/cloud-provider/controllers/service.(*Controller).syncNodes
//lint:ignore SA1019 the declaration must be upstream's, which returns a sets.String
func syncNodes(c *service.Controller, ctx context.Context, workers int) sets.String

// SyncNodes returns c's syncNodes method, what its node worker runs for
// each key of the Node queue: it updates the hosts of the load balancer
// of every Service the controller synced before, with workers goroutines,
// and returns the keys of the Services to retry, sorted.
func SyncNodes(c *service.Controller) func(ctx context.Context, workers int) []string {
	return func(ctx context.Context, workers int) []string { return syncNodes(c, ctx, workers).List() }
}

// methods are the linked methods and the signatures their source must
// declare, for the test.
var methods = []struct {
	fn                      any
	name, recv, method, sig string
}{
	{syncService, "k8s.io/cloud-provider/controllers/service.(*Controller).syncService", "*Controller", "syncService", "func(context.Context, string) error"},
	{syncNodes, "k8s.io/cloud-provider/controllers/service.(*Controller).syncNodes", "*Controller", "syncNodes", "func(context.Context, int) sets.String"},
}

// Cached puts svc into c's cache of synced Services under key, as a sync
// of svc would have left it (cachedService{state: svc} in
// c.cache.serviceMap): what the controller remembers of a Service it
// synced before, and uses when that Service is gone (processServiceDeletion)
// or came back with another uid. It fails t at once, naming the field,
// when the cache is not what it was.
func Cached(t testing.TB, c *service.Controller, key string, svc *corev1.Service) {
	t.Helper()
	if err := checkCache(); err != nil {
		t.Fatal(err)
	}
	cache := field(reflect.ValueOf(c).Elem(), "cache").Elem() // serviceCache
	m := field(cache, "serviceMap")
	entry := reflect.New(m.Type().Elem().Elem()) // *cachedService
	field(entry.Elem(), "state").Set(reflect.ValueOf(svc))
	if m.IsNil() {
		m.Set(reflect.MakeMap(m.Type()))
	}
	m.SetMapIndex(reflect.ValueOf(key), entry)
}

// field returns the (settable) field name of the struct value v.
func field(v reflect.Value, name string) reflect.Value {
	f := v.FieldByName(name)
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// checkCache says what moved when Controller.cache is no longer a
// *serviceCache whose serviceMap maps keys to *cachedService{state
// *v1.Service}.
func checkCache() error {
	ct := reflect.TypeFor[service.Controller]()
	cf, ok := ct.FieldByName("cache")
	if !ok || cf.Type.Kind() != reflect.Pointer || cf.Type.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("reach: %v.cache is no longer a pointer to a struct (serviceCache)", ct)
	}
	mf, ok := cf.Type.Elem().FieldByName("serviceMap")
	if !ok || mf.Type.Kind() != reflect.Map || mf.Type.Key().Kind() != reflect.String ||
		mf.Type.Elem().Kind() != reflect.Pointer || mf.Type.Elem().Elem().Kind() != reflect.Struct {
		return fmt.Errorf("reach: %v.cache.serviceMap is no longer a map[string]*cachedService", ct)
	}
	sf, ok := mf.Type.Elem().Elem().FieldByName("state")
	if !ok || sf.Type != reflect.TypeFor[*corev1.Service]() {
		return fmt.Errorf("reach: cachedService.state is no longer a *v1.Service")
	}
	return nil
}
