package resources

import (
	"fmt"
	"reflect"
)

// FromInfos makes a table of types described one by one, for types that no
// generated clientset serves (kubebuilder APIs). Each Info needs its Type,
// GVK and GVR; two Infos of the same kind or resource are an error.
func FromInfos(infos ...*Info) (*Table, error) {
	t := newTable()
	for i, in := range infos {
		switch {
		case in == nil:
			return nil, fmt.Errorf("type %d is nil", i)
		case in.Type == nil || in.Type.Kind() != reflect.Pointer || in.Type.Elem().Kind() != reflect.Struct:
			return nil, fmt.Errorf("type %d (%v): want a pointer to a struct", i, in.Type)
		case in.GVK.Kind == "" || in.GVK.Version == "":
			return nil, fmt.Errorf("type %d (%v): no kind", i, in.Type)
		case in.GVR.Resource == "":
			return nil, fmt.Errorf("%v: no resource", in.GVK)
		}
		if _, dup := t.byGVK[in.GVK]; dup {
			return nil, fmt.Errorf("%v is described twice", in.GVK)
		}
		if _, dup := t.byGVR[in.GVR]; dup {
			return nil, fmt.Errorf("%v is described twice", in.GVR)
		}
		t.add(in)
	}
	if len(t.infos) == 0 {
		return nil, fmt.Errorf("no types")
	}
	t.finish()
	return t, nil
}
