package clientgo

import (
	"context"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

// These tests fail when a client-go upgrade moves a field this package
// reads: the message names the field to look for in client-go's source.

func TestListenersOfAGeneratedInformer(t *testing.T) {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	inf := factory.Core().V1().Pods().Informer()
	var added []string
	h := cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) { added = append(added, obj.(*corev1.Pod).Name) }}
	reg, err := inf.AddEventHandler(h)
	if err != nil {
		t.Fatal(err)
	}
	ls, ok := Listeners(inf)
	if !ok {
		t.Fatal("Listeners: client-go's sharedIndexInformer no longer has processor.listeners (map of *processorListener, guarded by listenersLock) with a field handler; read k8s.io/client-go/tools/cache/shared_informer.go")
	}
	if len(ls) != 1 || ls[0].Registration != reg {
		t.Fatalf("Listeners = %v, want the one registration AddEventHandler returned", ls)
	}
	ls[0].Handler.OnAdd(&corev1.Pod{}, false)
	ls[0].Handler.OnAdd(func() *corev1.Pod { p := &corev1.Pod{}; p.Name = "web"; return p }(), false)
	if want := []string{"", "web"}; !reflect.DeepEqual(added, want) {
		t.Errorf("the handler Listeners returned saw %q, want %q", added, want)
	}
	regs, ok := Registrations(inf)
	if !ok || len(regs) != 1 || regs[0] != reg {
		t.Errorf("Registrations = %v, %v; want [%v], true", regs, ok, reg)
	}
}

func TestListenersOfSomethingElse(t *testing.T) {
	if _, ok := Listeners(nil); ok {
		t.Error("Listeners(nil) reported ok")
	}
	var other struct{ cache.SharedIndexInformer }
	if _, ok := Listeners(&other); ok {
		t.Error("Listeners of a type that is not client-go's informer reported ok")
	}
}

func TestFactoryInformers(t *testing.T) {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	m, ok := FactoryInformers(factory)
	if !ok {
		t.Fatal("FactoryInformers: client-go's sharedInformerFactory no longer has informers (map[reflect.Type]cache.SharedIndexInformer) guarded by lock (sync.Mutex); read k8s.io/client-go/informers/factory.go")
	}
	if len(m) != 0 {
		t.Errorf("a new factory holds %d informers, want 0", len(m))
	}
	inf := factory.Core().V1().Pods().Informer()
	m, _ = FactoryInformers(factory)
	// The factory may hand out a typed view of the informer it keeps: the
	// same store either way.
	if got := m[reflect.TypeFor[*corev1.Pod]()]; got == nil || got.GetIndexer() != inf.GetIndexer() {
		t.Errorf("FactoryInformers[*v1.Pod] = %v, want the informer the factory returned", got)
	}
	if _, ok := FactoryInformers(struct{}{}); ok {
		t.Error("FactoryInformers of a struct value reported ok")
	}
}

func TestOrderIsStableAndByFirstSight(t *testing.T) {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	inf := factory.Core().V1().Pods().Informer()
	var calls []string
	first, _ := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) { calls = append(calls, "first") }})
	seen := map[cache.ResourceEventHandlerRegistration]int{}
	ls, _ := Listeners(inf)
	Order(ls, seen)
	second, _ := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) { calls = append(calls, "second") }})
	for range 5 { // the map's order varies; Order's must not
		ls, _ := Listeners(inf)
		ls = Order(ls, seen)
		if len(ls) != 2 || ls[0].Registration != first || ls[1].Registration != second {
			t.Fatalf("Order put the handlers out of the order they were first seen in")
		}
	}
}

func TestListerWatcher(t *testing.T) {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	if lw := ListerWatcher(factory.Core().V1().Pods().Informer()); lw == nil {
		t.Fatal("ListerWatcher: client-go's sharedIndexInformer no longer has a field listerWatcher (cache.ListerWatcher); read k8s.io/client-go/tools/cache/shared_informer.go")
	}
	if lw := ListerWatcher(struct{ cache.SharedIndexInformer }{}); lw != nil {
		t.Errorf("ListerWatcher of another implementation = %v, want nil", lw)
	}
}

// AwaitSynced waits for a handler's initial list on every supported
// client-go minor: through HasSyncedChecker where the registration has it
// (1.36 and later), by polling HasSynced where it does not (1.35).
func TestAwaitSynced(t *testing.T) {
	client := fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}})
	factory := informers.NewSharedInformerFactory(client, 0)
	inf := factory.Core().V1().Pods().Informer()
	var added []string
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) { added = append(added, obj.(*corev1.Pod).Name) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	// Not started: the handler cannot have synced.
	short, stop := context.WithTimeout(ctx, 20*time.Millisecond)
	defer stop()
	if AwaitSynced(short, reg) {
		t.Fatal("AwaitSynced reported a handler of an informer that was not started synced")
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	defer cancel() // before Shutdown, which waits for the informers
	wait, stop2 := context.WithTimeout(ctx, 10*time.Second)
	defer stop2()
	if !AwaitSynced(wait, reg) {
		t.Fatal("AwaitSynced: the handler did not sync within 10s")
	}
	if !reg.HasSynced() {
		t.Error("AwaitSynced returned before the registration reported HasSynced")
	}
	if want := []string{"web"}; !reflect.DeepEqual(added, want) {
		t.Errorf("the handler saw %q when AwaitSynced returned, want %q", added, want)
	}
}

func TestStartedInformers(t *testing.T) {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	pods := factory.Core().V1().Pods().Informer()
	m, ok := StartedInformers(factory)
	if !ok {
		t.Fatal("StartedInformers: client-go's sharedInformerFactory no longer has startedInformers (map[reflect.Type]bool) beside informers, guarded by lock (sync.Mutex); read k8s.io/client-go/informers/factory.go")
	}
	if len(m) != 0 {
		t.Errorf("before Start, %d informers started, want 0", len(m))
	}
	ctx, cancel := context.WithCancel(t.Context())
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	defer cancel()
	factory.Core().V1().ConfigMaps().Informer() // after Start: not started
	m, _ = StartedInformers(factory)
	if len(m) != 1 || m[reflect.TypeFor[*corev1.Pod]()] == nil || m[reflect.TypeFor[*corev1.Pod]()].GetIndexer() != pods.GetIndexer() {
		t.Errorf("StartedInformers = %v, want the pods informer only", m)
	}
	wait, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	if !AwaitSynced(wait, pods) {
		t.Error("AwaitSynced: the started informer did not sync within 10s")
	}
	if _, ok := StartedInformers(struct{}{}); ok {
		t.Error("StartedInformers of a struct value reported ok")
	}
}
