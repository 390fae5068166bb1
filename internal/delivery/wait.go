package delivery

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/internal/clientgo"
)

// In informer mode (and on a real server) the informers run: the world
// waits for them instead of feeding them.

// AwaitInformer waits, at most timeout, until a running informer's store
// holds objs (of the keys owns says are the fixture's).
func AwaitInformer(ctx context.Context, timeout time.Duration, gvr schema.GroupVersionResource, informer cache.SharedIndexInformer,
	objs []runtime.Object, owns func(key string) bool) error {
	want := map[string]runtime.Object{}
	for _, o := range objs {
		key, err := cache.MetaNamespaceKeyFunc(o)
		if err != nil {
			return fmt.Errorf("fixture: refreshing %v: %v", gvr, err)
		}
		want[key] = o
	}
	matches := func() bool {
		store := informer.GetStore()
		n := 0
		for _, key := range store.ListKeys() {
			if owns(key) {
				n++
			}
		}
		if n != len(want) {
			return false
		}
		for key, o := range want {
			got, ok, _ := store.GetByKey(key)
			if !ok || !reflect.DeepEqual(got, o) {
				return false
			}
		}
		return true
	}
	// The informer tells its handlers after it updated its store: check
	// again on each event rather than polling.
	changed := make(chan struct{}, 1)
	signal := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	reg, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { signal() },
		UpdateFunc: func(any, any) { signal() },
		DeleteFunc: func(any) { signal() },
	})
	if err != nil {
		return fmt.Errorf("fixture: refreshing %v: %v", gvr, err)
	}
	defer func() { _ = informer.RemoveEventHandler(reg) }()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for !matches() {
		select {
		case <-changed:
		case <-deadline.C:
			return fmt.Errorf("fixture: the %v informer did not catch up with the tracker within %v", gvr, timeout)
		case <-ctx.Done():
			return fmt.Errorf("fixture: the test ended while refreshing %v", gvr)
		}
	}
	return nil
}

// AwaitHandlers waits until every event handler registered on informer
// (named by what in the error) has processed its initial list, at most
// timeout (ctx's); reachable is false when the handlers' registrations
// cannot be reached.
func AwaitHandlers(ctx context.Context, timeout time.Duration, informer cache.SharedIndexInformer, what string) (reachable bool, err error) {
	regs, ok := clientgo.Registrations(informer)
	if !ok {
		return false, nil
	}
	for _, reg := range regs {
		if !clientgo.AwaitSynced(ctx, reg) {
			return true, fmt.Errorf("fixture: an event handler of %s did not process the informer's initial list within %v", what, timeout)
		}
	}
	return true, nil
}

// CacheCopy is a deep copy of an object in an informer's indexer, kept to
// find out whether the controller changed the shared object.
type CacheCopy struct {
	gvr    schema.GroupVersionResource
	shared runtime.Object
	copy   runtime.Object
}

// CacheMutations describes every snapshotted object the controller changed.
func CacheMutations(snap []CacheCopy) []string {
	var out []string
	for _, c := range snap {
		if reflect.DeepEqual(c.shared, c.copy) {
			continue
		}
		key, _ := cache.MetaNamespaceKeyFunc(c.copy)
		out = append(out, fmt.Sprintf("%s %s changed (-cached +now):\n%s", c.gvr.Resource, key,
			cmp.Diff(c.copy, c.shared, cmp.Exporter(func(reflect.Type) bool { return true }))))
	}
	return out
}

// SnapshotIndexer adds to out copies of the objects of indexer (an
// informer of gvr) that a sync of a key in namespace can reach, reusing
// the copies of the last snapshot (last) and noting them in copies.
func SnapshotIndexer(gvr schema.GroupVersionResource, indexer cache.Indexer, namespaced bool, namespace string,
	last, copies map[runtime.Object]runtime.Object, out []CacheCopy) []CacheCopy {
	var items []any
	if namespaced && namespace != "" {
		var err error
		if items, err = indexer.ByIndex(cache.NamespaceIndex, namespace); err != nil {
			items = nil
			for _, item := range indexer.List() {
				if m, err := meta.Accessor(item); err == nil && m.GetNamespace() == namespace {
					items = append(items, item)
				}
			}
		}
	} else {
		items = indexer.List()
	}
	for _, item := range items {
		obj, ok := item.(runtime.Object)
		if !ok {
			continue
		}
		c, ok := last[obj]
		if !ok {
			c = obj.DeepCopyObject()
		}
		copies[obj] = c
		out = append(out, CacheCopy{gvr: gvr, shared: obj, copy: c})
	}
	return out
}
