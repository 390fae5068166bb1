package clientgo

import (
	"context"
	"reflect"
	"time"

	"k8s.io/client-go/tools/cache"
)

// doneChecker is the part of client-go's cache.DoneChecker (1.36 and
// later) that AwaitSynced uses; client-go 1.35 has no such type.
type doneChecker interface {
	Done() <-chan struct{}
}

// AwaitSynced waits until the handler of reg has processed its informer's
// initial list, and reports false when ctx ends first. On client-go 1.36
// and later it waits on the registration's HasSyncedChecker().Done(); on
// 1.35, whose registrations have only HasSynced, it polls that every
// millisecond. It starts no goroutine.
func AwaitSynced(ctx context.Context, reg cache.ResourceEventHandlerRegistration) bool {
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
func syncedChan(reg cache.ResourceEventHandlerRegistration) <-chan struct{} {
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
