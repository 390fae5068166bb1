package sweeps

import (
	"encoding/json"
	"sort"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// FirstAppliedField returns the first field an apply configuration sets
// (in key order), past its identity, as a field path (".spec.replicas").
func FirstAppliedField(patch []byte) string {
	var obj map[string]any
	if err := yaml.Unmarshal(patch, &obj); err != nil {
		return ".metadata"
	}
	var walk func(m map[string]any, prefix string) string
	walk = func(m map[string]any, prefix string) string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := prefix + "." + k
			switch p {
			case ".apiVersion", ".kind", ".metadata.name", ".metadata.namespace", ".metadata.resourceVersion", ".metadata.uid":
				continue
			}
			if sub, ok := m[k].(map[string]any); ok && len(sub) > 0 {
				if got := walk(sub, p); got != "" {
					return got
				}
				continue
			}
			return p
		}
		return ""
	}
	if p := walk(obj, ""); p != "" {
		return p
	}
	return ".metadata"
}

// PatchResourceVersion returns the resourceVersion a patch sets on the
// object it patches: the server then updates on that condition (a
// Conflict when the stored object's differs). "" for none.
func PatchResourceVersion(pt types.PatchType, patch []byte) string {
	if pt == types.JSONPatchType {
		var ops []struct {
			Op    string `json:"op"`
			Path  string `json:"path"`
			Value any    `json:"value"`
		}
		if json.Unmarshal(patch, &ops) != nil {
			return ""
		}
		rv := ""
		for _, op := range ops {
			if op.Path != "/metadata/resourceVersion" {
				continue
			}
			switch op.Op {
			case "add", "replace":
				rv, _ = op.Value.(string)
			case "remove":
				rv = ""
			}
		}
		return rv
	}
	var obj struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if yaml.Unmarshal(patch, &obj) != nil { // JSON, or an apply's YAML
		return ""
	}
	return obj.Metadata.ResourceVersion
}
