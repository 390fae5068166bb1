package feed

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
)

func pod(name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// fed returns a fed pod informer and the log of its one handler.
func fed(t *testing.T) (*Informer, *[]string) {
	t.Helper()
	inf := informers.NewSharedInformerFactory(fake.NewClientset(), 0).Core().V1().Pods().Informer()
	var log []string
	name := func(obj any) string {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			return "tombstone " + tomb.Key
		}
		m := obj.(metav1.Object)
		return m.GetName() + "@" + m.GetResourceVersion()
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, list bool) { log = append(log, fmt.Sprintf("add %s list=%v", name(obj), list)) },
		UpdateFunc: func(old, new any) { log = append(log, "update "+name(old)+" -> "+name(new)) },
		DeleteFunc: func(obj any) { log = append(log, "delete "+name(obj)) },
	}); err != nil {
		t.Fatal(err)
	}
	return &Informer{Name: "the pods informer", Informer: inf}, &log
}

func check(t *testing.T, log *[]string, want ...string) {
	t.Helper()
	if !reflect.DeepEqual(*log, want) {
		t.Errorf("handlers were told:\n  %s\nwant:\n  %s", strings.Join(*log, "\n  "), strings.Join(want, "\n  "))
	}
	*log = nil
}

func TestListThenEvents(t *testing.T) {
	in, log := fed(t)
	if err := in.List([]runtime.Object{pod("b", "2"), pod("a", "1")}, 2); err != nil {
		t.Fatal(err)
	}
	check(t, log, "add a@1 list=true", "add b@2 list=true")
	for _, step := range []struct {
		ev watch.Event
		rv Revision
	}{
		{watch.Event{Type: watch.Added, Object: pod("b", "2")}, 2}, // in the list already
		{watch.Event{Type: watch.Modified, Object: pod("a", "3")}, 3},
		{watch.Event{Type: watch.Modified, Object: pod("a", "3")}, 0}, // no change
		{watch.Event{Type: watch.Deleted, Object: pod("b", "4")}, 4},
		{watch.Event{Type: watch.Deleted, Object: pod("c", "5")}, 5}, // never held
	} {
		if err := in.Deliver(step.ev, step.rv); err != nil {
			t.Fatal(err)
		}
	}
	check(t, log, "update a@1 -> a@3", "delete b@4")
	checkLastSynced(t, in.Informer, "4", "4")
}

func TestRelistTellsDeletesThroughTombstones(t *testing.T) {
	in, log := fed(t)
	if err := in.List([]runtime.Object{pod("a", "1"), pod("b", "2")}, 2); err != nil {
		t.Fatal(err)
	}
	*log = nil
	if err := in.Relist([]runtime.Object{pod("a", "1"), pod("c", "5")}, 6); err != nil {
		t.Fatal(err)
	}
	check(t, log, "delete tombstone ns/b", "add c@5 list=false")
	checkLastSynced(t, in.Informer, "6", "the relist's 6")
}

func TestKeepFollowsASelection(t *testing.T) {
	in, log := fed(t)
	in.Keep = func(obj runtime.Object) bool { return obj.(*corev1.Pod).Labels["app"] == "web" }
	web := pod("a", "1")
	web.Labels = map[string]string{"app": "web"}
	if err := in.List([]runtime.Object{web, pod("b", "2")}, 2); err != nil {
		t.Fatal(err)
	}
	if err := in.Deliver(watch.Event{Type: watch.Modified, Object: pod("a", "3")}, 3); err != nil {
		t.Fatal(err)
	}
	check(t, log, "add a@1 list=true", "delete a@3")
	if deleted, _, _ := in.Informer.GetStore().GetByKey("ns/a"); deleted != nil {
		t.Error("the store still holds a")
	}
}

func TestPanickingHandler(t *testing.T) {
	inf := informers.NewSharedInformerFactory(fake.NewClientset(), 0).Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) { panic("boom") }}); err != nil {
		t.Fatal(err)
	}
	in := &Informer{Name: "the pods informer", Informer: inf}
	err := in.List([]runtime.Object{pod("a", "1")}, 1)
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("List = %v, want a PanicError", err)
	}
	if want := "panicked on an add (initial list) of *v1.Pod ns/a: boom"; !strings.Contains(err.Error(), want) || pe.Informer != "the pods informer" {
		t.Errorf("error %q lacks %q or the informer's name", err, want)
	}
}

func TestBlindInformerFeedsItsStoreOnly(t *testing.T) {
	inf := informers.NewSharedInformerFactory(fake.NewClientset(), 0).Core().V1().Pods().Informer()
	in := &Informer{Name: "wrapped", Informer: struct{ cache.SharedIndexInformer }{inf}}
	if err := in.List([]runtime.Object{pod("a", "1")}, 1); err != nil {
		t.Fatal(err)
	}
	if !in.Blind() {
		t.Error("a wrapped informer's handlers are reachable?")
	}
	if _, ok, _ := inf.GetStore().GetByKey("ns/a"); !ok {
		t.Error("the store was not filled")
	}
}

func TestRelistReplacesTheStoreFirst(t *testing.T) {
	in, log := fed(t)
	if err := in.List([]runtime.Object{pod("a", "1"), pod("b", "2"), pod("c", "3")}, 3); err != nil {
		t.Fatal(err)
	}
	*log = nil
	var seen []string // what the store held when a handler ran
	if _, err := in.Informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		DeleteFunc: func(any) { seen = append(seen, strings.Join(in.Informer.GetStore().ListKeys(), ",")) },
	}); err != nil {
		t.Fatal(err)
	}
	if err := in.CatchUp(); err != nil {
		t.Fatal(err)
	}
	var told []string
	in.Tell = func(what, key string) { told = append(told, what+" "+key) }
	if err := in.Relist([]runtime.Object{pod("a", "1"), pod("c", "7"), pod("d", "8")}, 9); err != nil {
		t.Fatal(err)
	}
	check(t, log, "delete tombstone ns/b", "update c@3 -> c@7", "add d@8 list=false")
	if d := strings.Join(told, "; "); d != "a tombstone (relist) ns/b; an update (relist) ns/c; an add (relist) ns/d" {
		t.Errorf("told %q", d)
	}
	if len(seen) != 1 || strings.Contains(seen[0], "ns/b") || !strings.Contains(seen[0], "ns/d") {
		t.Errorf("at the tombstone the store held %q; want the relisted objects (client-go replaces the store first)", seen)
	}
}

func TestResyncGivesEveryObjectAsItsOwnUpdate(t *testing.T) {
	in, log := fed(t)
	if err := in.List([]runtime.Object{pod("b", "2"), pod("a", "1")}, 2); err != nil {
		t.Fatal(err)
	}
	*log = nil
	if err := in.Resync(); err != nil {
		t.Fatal(err)
	}
	check(t, log, "update a@1 -> a@1", "update b@2 -> b@2")
}

func TestCoalesceKeepsEachLastWhereItStands(t *testing.T) {
	type ev struct{ id, what string }
	got := Coalesce([]ev{{"a", "add"}, {"b", "update"}, {"a", "update"}, {"c", "delete"}, {"b", "delete"}}, func(e ev) string { return e.id })
	want := []ev{{"a", "update"}, {"c", "delete"}, {"b", "delete"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Coalesce = %v, want %v", got, want)
	}
}

func TestCoalescedDeliveries(t *testing.T) {
	// What Deliver makes of each object's last event, as RefreshAs gives
	// it: a recreated object is an update from the cached copy; an object
	// made and deleted meanwhile tells nothing.
	in, log := fed(t)
	if err := in.List([]runtime.Object{pod("a", "1")}, 1); err != nil {
		t.Fatal(err)
	}
	*log = nil
	for _, e := range []watch.Event{
		{Type: watch.Added, Object: pod("a", "5")}, // a deleted, then made again
		{Type: watch.Deleted, Object: pod("n", "7")},
		{Type: watch.Modified, Object: pod("m", "8")}, // m made, then changed
	} {
		if err := in.Deliver(e, 0); err != nil {
			t.Fatal(err)
		}
	}
	check(t, log, "update a@1 -> a@5", "add m@8 list=false")
}
