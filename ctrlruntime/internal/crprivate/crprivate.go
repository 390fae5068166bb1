// Package crprivate holds every read of controller-runtime's unexported
// state that the ctrlruntime module makes (the controller a builder
// makes, *internal/controller.Controller[reconcile.Request]): its tests
// fail, naming the field, when a controller-runtime upgrade moves one.
// Nothing else in the module reaches into controller-runtime by
// reflection.
package crprivate

import (
	"reflect"
	"strings"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// The fields read, by name, on controller-runtime v0.25's Controller.
const (
	fieldStartWatches = "startWatches" // []source.TypedSource[request], unexported
	fieldQueue        = "Queue"        // workqueue.TypedRateLimitingInterface[request]
	fieldNewQueue     = "NewQueue"     // func(controllerName string, rl) queue
)

// NewQueueFunc is the type of a controller's NewQueue.
type NewQueueFunc = func(string, workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request]

// controllerStruct returns the struct ctrl points to; ok is false when
// ctrl is not a pointer to a struct.
func controllerStruct(ctrl any) (reflect.Value, bool) {
	v := reflect.ValueOf(ctrl)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	return v.Elem(), true
}

// KindSources counts the event sources of a controller that watch a kind
// (source.Kind), read off its unexported list of watches; ok is false
// when ctrl is not controller-runtime's controller.
func KindSources(ctrl any) (n int, ok bool) {
	v, ok := controllerStruct(ctrl)
	if !ok {
		return 0, false
	}
	w := v.FieldByName(fieldStartWatches)
	if !w.IsValid() || w.Kind() != reflect.Slice {
		return 0, false
	}
	for i := range w.Len() {
		e := w.Index(i)
		if e.Kind() == reflect.Interface && !e.IsNil() && strings.Contains(e.Elem().Type().String(), "Kind[") {
			n++
		}
	}
	return n, true
}

// Queue returns a started controller's work queue.
func Queue(ctrl any) (workqueue.TypedInterface[reconcile.Request], bool) {
	v, ok := controllerStruct(ctrl)
	if !ok {
		return nil, false
	}
	f := v.FieldByName(fieldQueue)
	if !f.IsValid() || !f.CanInterface() {
		return nil, false
	}
	q, ok := f.Interface().(workqueue.TypedInterface[reconcile.Request])
	return q, ok && q != nil
}

// SetNewQueue replaces the function a controller makes its work queue
// with, before it starts; it reports false when it cannot.
func SetNewQueue(ctrl any, newQueue NewQueueFunc) bool {
	v, ok := controllerStruct(ctrl)
	if !ok {
		return false
	}
	f := v.FieldByName(fieldNewQueue)
	if !f.IsValid() || !f.CanSet() || f.Type() != reflect.TypeFor[NewQueueFunc]() {
		return false
	}
	f.Set(reflect.ValueOf(newQueue))
	return true
}
