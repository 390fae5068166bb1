package world

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// decode decodes one manifest with the scheme of the clientset that knows
// its kind; a List is unpacked.
func (w *World) decode(doc []byte) ([]runtime.Object, error) {
	data, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return nil, err
	}
	var tm metav1.TypeMeta
	if err := json.Unmarshal(data, &tm); err != nil {
		return nil, err
	}
	return w.DecodeJSON(data, tm)
}

// DecodeJSON decodes one object (or list) given as JSON, whose type meta
// is tm, with the scheme of the clientset that knows its kind.
func (w *World) DecodeJSON(data []byte, tm metav1.TypeMeta) ([]runtime.Object, error) {
	gvk := tm.GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		return nil, errors.New("not a Kubernetes object: apiVersion or kind is missing")
	}
	if dec := w.decoderFor(gvk); dec != nil {
		// Strict: an unknown field is an error.
		obj, _, err := dec.Decode(data, nil, nil)
		if err != nil {
			return nil, err
		}
		if !meta.IsListType(obj) {
			return []runtime.Object{obj}, nil
		}
		items, err := meta.ExtractList(obj)
		if err != nil {
			return nil, err
		}
		var out []runtime.Object
		for j, item := range items {
			raw, ok := item.(*runtime.Unknown)
			if !ok {
				out = append(out, item)
				continue
			}
			got, err := w.decode(raw.Raw)
			if err != nil {
				return nil, fmt.Errorf("list item %d: %v", j, err)
			}
			out = append(out, got...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no registered clientset knows %s (registered group/versions: %s)", gvk, strings.Join(w.GroupVersions(), ", "))
}
