package clientgo

import (
	"context"
	"reflect"
	"time"
)

// doneChecker is the part of client-go's cache.DoneChecker (1.36 and
// later) that AwaitSynced uses; client-go 1.35 has no such type.
type doneChecker interface {
	Done() <-chan struct{}
}

// Synced is what reports that an initial list was processed: a handler's
// registration (cache.ResourceEventHandlerRegistration) or an informer
// (cache.SharedIndexInformer).
type Synced interface {
	HasSynced() bool
}

// AwaitSynced waits until reg has synced (the handler of a registration
// has processed its informer's initial list; an informer has filled its
// store from it), and reports false when ctx ends first. On client-go
// 1.36 and later it waits on reg's HasSyncedChecker().Done(); on 1.35,
// which has only HasSynced, it polls that every millisecond (client-go's
// own cache.WaitForCacheSync, which 1.35's informer factories call, polls
// every 100 milliseconds). It starts no goroutine.
func AwaitSynced(ctx context.Context, reg Synced) bool {
	if done := syncedChan(reg); done != nil {
		select {
		case <-done:
			return true
		case <-ctx.Done():
			return false
		}
	}
	if reg.HasSynced() {
		return true
	}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if reg.HasSynced() {
				return true
			}
		case <-ctx.Done():
			return false
		}
	}
}

// syncedChan returns reg.HasSyncedChecker().Done(), or nil when reg has no
// such method (client-go 1.35). The method is looked up by a constant
// name, which keeps the linker's dead-code elimination (see
// internal/resources' verbs).
func syncedChan(reg Synced) <-chan struct{} {
	m := reflect.ValueOf(reg).MethodByName("HasSyncedChecker")
	if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
		return nil
	}
	out := m.Call(nil)[0]
	if out.Kind() == reflect.Interface && out.IsNil() {
		return nil
	}
	if dc, ok := out.Interface().(doneChecker); ok {
		return dc.Done()
	}
	return nil
}
