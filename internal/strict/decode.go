package strict

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// decode decodes one manifest (YAML) with the decoder of its kind; a List
// is unpacked.
func decode(doc []byte, decoderFor func(schema.GroupVersionKind) runtime.Decoder, groupVersions func() []string) ([]runtime.Object, error) {
	data, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return nil, err
	}
	var tm metav1.TypeMeta
	if err := json.Unmarshal(data, &tm); err != nil {
		return nil, err
	}
	return DecodeJSON(data, tm, decoderFor, groupVersions)
}

// DecodeJSON decodes one object (or list) given as JSON, whose type meta
// is tm, with the decoder decoderFor gives its kind (a strict one: an
// unknown field is an error); groupVersions names what is known in
// errors.
func DecodeJSON(data []byte, tm metav1.TypeMeta, decoderFor func(schema.GroupVersionKind) runtime.Decoder, groupVersions func() []string) ([]runtime.Object, error) {
	gvk := tm.GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		return nil, errors.New("not a Kubernetes object: apiVersion or kind is missing")
	}
	if dec := decoderFor(gvk); dec != nil {
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
			got, err := decode(raw.Raw, decoderFor, groupVersions)
			if err != nil {
				return nil, fmt.Errorf("list item %d: %v", j, err)
			}
			out = append(out, got...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no registered clientset knows %s (registered group/versions: %s)", gvk, strings.Join(groupVersions(), ", "))
}
