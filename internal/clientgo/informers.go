package clientgo

import (
	"fmt"
	"maps"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"k8s.io/client-go/tools/cache"
)

var (
	registrationType        = reflect.TypeFor[cache.ResourceEventHandlerRegistration]()
	handlerType             = reflect.TypeFor[cache.ResourceEventHandler]()
	rwMutexType             = reflect.TypeFor[sync.RWMutex]()
	mutexType               = reflect.TypeFor[sync.Mutex]()
	sharedIndexInformerType = reflect.TypeFor[cache.SharedIndexInformer]()
	informersMapType        = reflect.TypeFor[map[reflect.Type]cache.SharedIndexInformer]()
	startedMapType          = reflect.TypeFor[map[reflect.Type]bool]()
	listerWatcherType       = reflect.TypeFor[cache.ListerWatcher]()
)

// fieldKey names a field of a struct type.
type fieldKey struct {
	t    reflect.Type
	name string
}

// fieldsByName caches structField: where each field read here is in each
// type (a fact of the type, never changed once found).
var fieldsByName sync.Map // fieldKey → structField

// structField is a field found by name, or not (ok false).
type structField struct {
	reflect.StructField
	ok bool
}

// fieldOf is t.FieldByName(name), looked up once per type and name: a
// walk of the struct's fields (and of its embedded structs' when the name
// is not its own) that the fixture would otherwise repeat for every
// informer and every batch of events.
func fieldOf(t reflect.Type, name string) (reflect.StructField, bool) {
	k := fieldKey{t, name}
	if f, ok := fieldsByName.Load(k); ok {
		return f.(structField).StructField, f.(structField).ok
	}
	sf, ok := t.FieldByName(name)
	fieldsByName.Store(k, structField{sf, ok})
	return sf, ok
}

// field is v.FieldByName(name) through fieldOf's cache; the zero Value when
// v's type has no such field.
func field(v reflect.Value, name string) reflect.Value {
	sf, ok := fieldOf(v.Type(), name)
	if !ok {
		return reflect.Value{}
	}
	return v.FieldByIndex(sf.Index)
}

// Listener is one event handler registered on a shared informer: the
// registration AddEventHandler returned and the handler it calls.
type Listener struct {
	Registration cache.ResourceEventHandlerRegistration
	Handler      cache.ResourceEventHandler
}

// Listeners returns the event handlers registered on a client-go shared
// informer, in no defined order (see Order). ok is false when inf is not client-go's shared informer, or
// client-go changed its layout.
//
// client-go keeps them in the informer's processor (field "processor"),
// as the keys of its map "listeners", guarded by "listenersLock"; each key
// is a *processorListener whose field "handler" is the handler.
func Listeners(inf cache.SharedIndexInformer) ([]Listener, bool) {
	p, ok := processor(inf)
	if !ok {
		return nil, false
	}
	listeners, lock := field(p, "listeners"), field(p, "listenersLock")
	if !listeners.IsValid() || listeners.Kind() != reflect.Map || !listeners.Type().Key().Implements(registrationType) ||
		!lock.IsValid() || lock.Type() != rwMutexType {
		return nil, false
	}
	mu := (*sync.RWMutex)(unsafe.Pointer(lock.UnsafeAddr()))
	mu.RLock()
	defer mu.RUnlock()
	m := reflect.NewAt(listeners.Type(), unsafe.Pointer(listeners.UnsafeAddr())).Elem()
	out := make([]Listener, 0, m.Len())
	for it := m.MapRange(); it.Next(); {
		k := it.Key()
		if k.IsNil() {
			continue
		}
		if k.Kind() != reflect.Pointer || k.Elem().Kind() != reflect.Struct {
			return nil, false
		}
		h := field(k.Elem(), "handler")
		if !h.IsValid() || h.Type() != handlerType {
			return nil, false
		}
		handler, _ := reflect.NewAt(h.Type(), unsafe.Pointer(h.UnsafeAddr())).Elem().Interface().(cache.ResourceEventHandler)
		out = append(out, Listener{Registration: k.Interface().(cache.ResourceEventHandlerRegistration), Handler: handler})
	}
	return out, true
}

// ListerWatcher returns the ListerWatcher of client-go's shared informer
// (its field "listerWatcher"), looking through the typed wrappers that
// embed it; nil for another implementation.
func ListerWatcher(informer cache.SharedIndexInformer) cache.ListerWatcher {
	v := reflect.ValueOf(informer)
	for range 4 {
		if v.Kind() == reflect.Interface {
			v = v.Elem()
		}
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return nil
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return nil
		}
		if fv := field(v, "listerWatcher"); fv.IsValid() && fv.Type() == listerWatcherType && fv.CanAddr() {
			lw, _ := reflect.NewAt(fv.Type(), unsafe.Pointer(fv.UnsafeAddr())).Elem().Interface().(cache.ListerWatcher)
			return lw
		}
		inner := field(v, "SharedIndexInformer") // typedSharedIndexInformer embeds it
		if !inner.IsValid() {
			return nil
		}
		v = inner
	}
	return nil
}

// Registrations returns the registrations of the event handlers of a
// client-go shared informer (see Listeners).
func Registrations(inf cache.SharedIndexInformer) ([]cache.ResourceEventHandlerRegistration, bool) {
	ls, ok := Listeners(inf)
	if !ok {
		return nil, false
	}
	out := make([]cache.ResourceEventHandlerRegistration, len(ls))
	for i, l := range ls {
		out[i] = l.Registration
	}
	return out, true
}

// processor returns the processor struct of a shared informer, looking
// through a typed informer (cache.NewTypedSharedIndexInformer, as
// generated factories make since client-go 1.35), which embeds one.
func processor(inf cache.SharedIndexInformer) (reflect.Value, bool) {
	v := reflect.ValueOf(inf)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	if f, ok := fieldOf(v.Elem().Type(), "SharedIndexInformer"); ok && f.Anonymous && f.Type == sharedIndexInformerType {
		inner, _ := v.Elem().FieldByIndex(f.Index).Interface().(cache.SharedIndexInformer)
		if inner == nil || inner == inf {
			return reflect.Value{}, false
		}
		return processor(inner)
	}
	p := field(v.Elem(), "processor")
	if !p.IsValid() || p.Kind() != reflect.Pointer || p.IsNil() || p.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	return p.Elem(), true
}

// FactoryInformers returns the informers a generated informer factory
// holds, by the Go type of their objects: the ones asked for. Every
// factory that client-go and k8s.io/code-generator make keeps them in a
// map field "informers" guarded by a mutex field "lock"; ok is false for a
// factory that does not.
func FactoryInformers(factory any) (map[reflect.Type]cache.SharedIndexInformer, bool) {
	v := reflect.ValueOf(factory)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	s := v.Elem()
	m, lock := field(s, "informers"), field(s, "lock")
	if !m.IsValid() || m.Type() != informersMapType || !lock.IsValid() || lock.Type() != mutexType {
		return nil, false
	}
	mu := (*sync.Mutex)(unsafe.Pointer(lock.UnsafeAddr()))
	mu.Lock()
	defer mu.Unlock()
	return maps.Clone(*(*map[reflect.Type]cache.SharedIndexInformer)(unsafe.Pointer(m.UnsafeAddr()))), true
}

// StartedInformers returns the informers of a generated informer factory
// that its Start has started (those its WaitForCacheSync waits for), by
// the Go type of their objects. Every factory that client-go and
// k8s.io/code-generator make keeps them in a map field "startedInformers"
// (map[reflect.Type]bool) beside "informers", guarded by "lock"; ok is
// false for a factory that does not.
func StartedInformers(factory any) (map[reflect.Type]cache.SharedIndexInformer, bool) {
	v := reflect.ValueOf(factory)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	s := v.Elem()
	m, started, lock := field(s, "informers"), field(s, "startedInformers"), field(s, "lock")
	if !m.IsValid() || m.Type() != informersMapType || !started.IsValid() || started.Type() != startedMapType || !lock.IsValid() || lock.Type() != mutexType {
		return nil, false
	}
	mu := (*sync.Mutex)(unsafe.Pointer(lock.UnsafeAddr()))
	mu.Lock()
	defer mu.Unlock()
	all := *(*map[reflect.Type]cache.SharedIndexInformer)(unsafe.Pointer(m.UnsafeAddr()))
	out := map[reflect.Type]cache.SharedIndexInformer{}
	for typ := range *(*map[reflect.Type]bool)(unsafe.Pointer(started.UnsafeAddr())) {
		if inf, ok := all[typ]; ok {
			out[typ] = inf
		}
	}
	return out, true
}

// Order sorts listeners by their position in seen, the order in which the
// caller first saw each registration, and adds the unseen ones to seen.
// client-go calls a shared informer's handlers each on a goroutine of its
// own, so it defines no order between them, and its map of listeners has
// none either: handlers seen for the first time together are ordered by
// their type and the code they run (stable for one test binary).
func Order(ls []Listener, seen map[cache.ResourceEventHandlerRegistration]int) []Listener {
	var fresh []Listener
	for _, l := range ls {
		if _, ok := seen[l.Registration]; !ok {
			fresh = append(fresh, l)
		}
	}
	sort.SliceStable(fresh, func(i, j int) bool { return handlerKey(fresh[i].Handler) < handlerKey(fresh[j].Handler) })
	for _, l := range fresh {
		seen[l.Registration] = len(seen)
	}
	sort.SliceStable(ls, func(i, j int) bool { return seen[ls[i].Registration] < seen[ls[j].Registration] })
	return ls
}

// handlerKey names a handler by its type and the code of its func fields
// (cache.ResourceEventHandlerFuncs, and the handler a
// cache.FilteringResourceEventHandler wraps).
func handlerKey(h cache.ResourceEventHandler) string {
	var b strings.Builder
	var walk func(v reflect.Value, depth int)
	walk = func(v reflect.Value, depth int) {
		fmt.Fprintf(&b, "%v;", v.Type())
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			if v.IsNil() {
				return
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct || depth > 2 {
			return
		}
		for i := range v.NumField() {
			switch fv := v.Field(i); fv.Kind() {
			case reflect.Func:
				fmt.Fprintf(&b, "%x;", fv.Pointer())
			case reflect.Interface:
				if !fv.IsNil() {
					walk(fv.Elem(), depth+1)
				}
			}
		}
	}
	if h == nil {
		return ""
	}
	walk(reflect.ValueOf(h), 0)
	return b.String()
}
