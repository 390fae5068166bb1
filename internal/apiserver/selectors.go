package apiserver

import (
	"fmt"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/jsonpath"
)

// Selection is what a list or watch request selects: its label selector
// and its field selector, whose labels were converted as kube-apiserver
// converts them for the resource (see Select). The zero Selection selects
// everything.
type Selection struct {
	labels labels.Selector
	fields fields.Selector
	// values computes the resource's own fields of an object (nil when
	// the field selector names metadata only).
	values func(obj runtime.Object) (fields.Set, error)
}

// Select returns the selection of a list or watch request on r with the
// label selector ls and the field selector fs (nil selects everything);
// ok is false when the request selects everything, so that such a request
// costs nothing more. A field selector naming a field the resource does
// not support gets the server's answer: a BadRequest with the conversion
// function's message ("field label not supported: spec.foo").
//
// The fields a selector may name are kube-apiserver's: metadata.name and
// metadata.namespace on most kinds, and those each kind's field-label
// conversion function accepts (a Pod's spec.nodeName and status.phase, a
// Secret's type, an Event's involvedObject.*, ...); a custom resource's
// are metadata.name, metadata.namespace when it is namespaced, and its
// Resource.SelectableFields.
func Select(r *Resource, ls labels.Selector, fs fields.Selector) (Selection, bool, error) {
	var s Selection
	if ls != nil && !ls.Empty() {
		s.labels = ls
	}
	if fs != nil && !fs.Empty() {
		fl := r.fieldLabels()
		own := false
		converted, err := fs.Transform(func(label, value string) (string, string, error) {
			to, ok := fl.labels[label]
			if !ok {
				return "", "", fl.refuse(label)
			}
			if to != "metadata.name" && to != "metadata.namespace" {
				own = true
			}
			return to, value, nil
		})
		if err != nil {
			return Selection{}, false, apierrors.NewBadRequest(err.Error())
		}
		if !converted.Empty() {
			s.fields = converted
			if own {
				s.values = r.fieldValues(fl)
			}
		}
	}
	return s, s.labels != nil || s.fields != nil, nil
}

// Matches reports whether obj is selected.
func (s Selection) Matches(obj runtime.Object) bool {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	if s.labels != nil && !s.labels.Matches(labels.Set(m.GetLabels())) {
		return false
	}
	if s.fields == nil {
		return true
	}
	set := fields.Set{}
	if s.values != nil {
		if set, err = s.values(obj); err != nil {
			return false
		}
	}
	set["metadata.name"] = m.GetName()
	set["metadata.namespace"] = m.GetNamespace()
	return s.fields.Matches(set)
}

// FilterList keeps, in list (a typed or unstructured list), the items s
// selects.
func (s Selection) FilterList(list runtime.Object) error {
	items, err := meta.ExtractList(list)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	kept := items[:0]
	for _, item := range items {
		if s.Matches(item) {
			kept = append(kept, item)
		}
	}
	if err := meta.SetList(list, kept); err != nil {
		return apierrors.NewInternalError(err)
	}
	return nil
}

// fieldLabels returns the field-label conversion of r's kind.
func (r *Resource) fieldLabels() *fieldLabels {
	if r.Custom {
		fl := &fieldLabels{labels: same("metadata.name"), refuse: notSupported}
		if r.Namespaced {
			fl.labels["metadata.namespace"] = "metadata.namespace"
		}
		for _, p := range r.SelectableFields {
			name := strings.TrimPrefix(p, ".")
			fl.labels[name] = name
		}
		return fl
	}
	if b := r.builtinOf(); b != nil && b.fieldLabels[r.GVK.Version] != nil {
		return b.fieldLabels[r.GVK.Version]
	}
	return defaultFieldLabels
}

// fieldValues returns the function computing the fields fl names of an
// object of r.
func (r *Resource) fieldValues(fl *fieldLabels) func(runtime.Object) (fields.Set, error) {
	if r.Custom {
		return customFieldValues(r.SelectableFields)
	}
	return func(obj runtime.Object) (fields.Set, error) {
		u, err := toUnstructured(obj)
		if err != nil {
			return nil, err
		}
		set := make(fields.Set, len(fl.values)+2)
		for name, value := range fl.values {
			set[name] = value(u)
		}
		return set, nil
	}
}

// customFieldValues computes a custom resource's selectable fields as
// apiextensions-apiserver's strategy does: each JSON path's single value
// formatted with fmt.Sprint, "" when absent.
func customFieldValues(paths []string) func(runtime.Object) (fields.Set, error) {
	type selectable struct {
		name string
		path *jsonpath.JSONPath
		err  error
	}
	parsed := make([]selectable, len(paths))
	for i, p := range paths {
		jp := jsonpath.New("selectableField")
		jp.AllowMissingKeys(true)
		parsed[i] = selectable{name: strings.TrimPrefix(p, "."), path: jp, err: jp.Parse("{" + p + "}")}
	}
	var mu sync.Mutex // a JSONPath is not safe for concurrent use
	return func(obj runtime.Object) (fields.Set, error) {
		u, err := toUnstructured(obj)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		set := make(fields.Set, len(parsed)+2)
		for _, sf := range parsed {
			if sf.err != nil {
				return nil, fmt.Errorf("unexpected error parsing jsonPath: %w", sf.err)
			}
			results, err := sf.path.FindResults(u)
			if err != nil {
				return nil, fmt.Errorf("unexpected error finding value with jsonPath: %w", err)
			}
			var value any
			if len(results) > 0 && len(results[0]) > 0 {
				if len(results) > 1 || len(results[0]) > 1 {
					return nil, fmt.Errorf("unexpectedly received more than one JSON path result")
				}
				value = results[0][0].Interface()
			}
			if value != nil {
				set[sf.name] = fmt.Sprint(value)
			} else {
				set[sf.name] = ""
			}
		}
		return set, nil
	}
}

// toUnstructured returns obj's JSON content.
func toUnstructured(obj runtime.Object) (map[string]any, error) {
	if u, ok := obj.(runtime.Unstructured); ok {
		return u.UnstructuredContent(), nil
	}
	return runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
}

// Watch returns a watch of the events of w that s selects, as the API
// server's watch cache sends them: an object that starts matching is
// Added, one that stops matching is Deleted (with its last matching
// state), and events of objects that never match are not sent. known are
// the selected objects the watcher knows already (those of the list a
// watch from a resourceVersion follows), whose events w does not resend.
// Stopping the returned watch stops w, and so does closing done (the end
// of the world the watch is of; nil: never), so that a watch its client
// forgot to stop does not outlive it.
func (s Selection) Watch(w watch.Interface, done <-chan struct{}, known ...runtime.Object) watch.Interface {
	fw := &filteredWatch{sel: s, visible: make(map[string]runtime.Object, len(known))}
	for _, obj := range known {
		if m, err := meta.Accessor(obj); err == nil {
			fw.visible[m.GetNamespace()+"/"+m.GetName()] = obj
		}
	}
	return TransformWatch(w, done, fw.convert)
}

// filteredWatch is the state of a watch filtered by a Selection.
type filteredWatch struct {
	sel Selection
	// visible holds, by namespace/name, the last state sent of each
	// object the watcher sees; only the watch's goroutine touches it.
	visible map[string]runtime.Object
}

// convert is the watch cache's convertToWatchEvent.
func (fw *filteredWatch) convert(ev watch.Event) (watch.Event, bool) {
	m, err := meta.Accessor(ev.Object)
	if err != nil || ev.Object == nil {
		return ev, true // bookmarks and errors pass
	}
	key := m.GetNamespace() + "/" + m.GetName()
	prev, was := fw.visible[key]
	switch ev.Type {
	case watch.Added, watch.Modified:
		passes := fw.sel.Matches(ev.Object)
		switch {
		case passes && was:
			fw.visible[key] = ev.Object
			return watch.Event{Type: watch.Modified, Object: ev.Object}, true
		case passes:
			fw.visible[key] = ev.Object
			return watch.Event{Type: watch.Added, Object: ev.Object}, true
		case was:
			delete(fw.visible, key)
			// The last matching state, with the event's resourceVersion.
			gone := prev.DeepCopyObject()
			if gm, err := meta.Accessor(gone); err == nil {
				gm.SetResourceVersion(m.GetResourceVersion())
			}
			return watch.Event{Type: watch.Deleted, Object: gone}, true
		}
		return ev, false
	case watch.Deleted:
		delete(fw.visible, key)
		return ev, was || fw.sel.Matches(ev.Object)
	}
	return ev, true
}
