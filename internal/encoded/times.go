package encoded

import (
	"reflect"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ServerTimes makes the times of obj what kube-apiserver holds: every
// object it stores passes through JSON (or protobuf, of the same
// precision), where a metav1.Time is RFC 3339 to the second and a
// metav1.MicroTime to the microsecond. A typed object's times are
// truncated in place (a walk of the fields that can hold one, planned once
// per type); an unstructured object's times are strings already, kept as
// the client sent them (a custom resource's metadata is the server's: see
// coerceCustomMetadata). obj is changed: pass a copy.
func ServerTimes(obj runtime.Object) {
	if obj == nil {
		return
	}
	if _, ok := obj.(runtime.Unstructured); ok {
		return
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return
	}
	if p := timePlanOf(v.Type().Elem()); p != nil {
		p.truncate(v.Elem())
	}
}

var (
	timeType      = reflect.TypeFor[metav1.Time]()
	microTimeType = reflect.TypeFor[metav1.MicroTime]()
	timePlans     sync.Map // reflect.Type → *timePlan (nil: holds no time)
)

// timePlan is where a value of one type holds times.
type timePlan struct {
	kind reflect.Kind
	// precision, for a metav1.Time or metav1.MicroTime.
	precision time.Duration
	// fields: a struct's fields that hold times (index, plan).
	fields []fieldPlan
	// elem: what a pointer points to, or a slice's, an array's or a
	// map's items.
	elem *timePlan
}

type fieldPlan struct {
	index int
	plan  *timePlan
}

// timePlanOf returns the plan of type t, nil when a value of t holds no
// time.
func timePlanOf(t reflect.Type) *timePlan {
	if p, ok := timePlans.Load(t); ok {
		return p.(*timePlan)
	}
	p := makeTimePlan(t, map[reflect.Type]bool{})
	timePlans.Store(t, p)
	return p
}

// makeTimePlan plans t; visiting holds the types being planned (a
// recursive type, such as JSONSchemaProps, holds no time of its own
// through itself).
func makeTimePlan(t reflect.Type, visiting map[reflect.Type]bool) *timePlan {
	switch t {
	case timeType:
		return &timePlan{precision: time.Second}
	case microTimeType:
		return &timePlan{precision: time.Microsecond}
	}
	if visiting[t] {
		return nil
	}
	if p, ok := timePlans.Load(t); ok {
		return p.(*timePlan)
	}
	visiting[t] = true
	defer delete(visiting, t)
	switch t.Kind() {
	case reflect.Struct:
		var fields []fieldPlan
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() || sf.Tag.Get("json") == "-" {
				continue // not encoded
			}
			if fp := makeTimePlan(sf.Type, visiting); fp != nil {
				fields = append(fields, fieldPlan{index: i, plan: fp})
			}
		}
		if fields != nil {
			return &timePlan{kind: reflect.Struct, fields: fields}
		}
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		if ep := makeTimePlan(t.Elem(), visiting); ep != nil {
			return &timePlan{kind: t.Kind(), elem: ep}
		}
	}
	return nil
}

// truncate truncates the times of v (addressable, of the plan's type).
func (p *timePlan) truncate(v reflect.Value) {
	if p.precision != 0 {
		// metav1.Time and metav1.MicroTime are both a time.Time.
		t := v.Field(0).Addr().Interface().(*time.Time)
		if !t.IsZero() {
			*t = t.Truncate(p.precision)
		}
		return
	}
	switch p.kind {
	case reflect.Struct:
		for _, f := range p.fields {
			f.plan.truncate(v.Field(f.index))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			p.elem.truncate(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			p.elem.truncate(v.Index(i))
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			item := reflect.New(v.Type().Elem()).Elem()
			item.Set(iter.Value())
			p.elem.truncate(item)
			v.SetMapIndex(iter.Key(), item)
		}
	}
}
