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
	"unsafe"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// The field read, by name, on controller-runtime v0.25's Controller.
const fieldStartWatches = "startWatches" // []source.TypedSource[request], unexported

// controllerStruct returns the struct ctrl points to; ok is false when
// ctrl is not a pointer to a struct.
func controllerStruct(ctrl any) (reflect.Value, bool) {
	v := reflect.ValueOf(ctrl)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	return v.Elem(), true
}

// Sources returns the event sources of a controller that has not started,
// in the order they were added (For, Owns, Watches), and whether each
// watches a kind (source.Kind, which registers an event handler on the
// manager's cache when it starts); ok is false when ctrl is not
// controller-runtime's controller.
func Sources(ctrl any) (srcs []source.TypedSource[reconcile.Request], kind []bool, ok bool) {
	v, ok := controllerStruct(ctrl)
	if !ok {
		return nil, nil, false
	}
	w := v.FieldByName(fieldStartWatches)
	if !w.IsValid() || w.Kind() != reflect.Slice || w.Type().Elem() != reflect.TypeFor[source.TypedSource[reconcile.Request]]() {
		return nil, nil, false
	}
	w = reflect.NewAt(w.Type(), unsafe.Pointer(w.UnsafeAddr())).Elem()
	for i := range w.Len() {
		e := w.Index(i)
		if e.IsNil() {
			continue
		}
		srcs = append(srcs, e.Interface().(source.TypedSource[reconcile.Request]))
		kind = append(kind, strings.Contains(e.Elem().Type().String(), "Kind["))
	}
	return srcs, kind, true
}
