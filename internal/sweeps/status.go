package sweeps

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
)

// Status returns obj's status as unstructured, with what differs from
// run to run masked (see MaskVolatile); nil when it has none.
func Status(obj runtime.Object) any {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	return MaskVolatile(u["status"])
}

// StatusDiff names the fields of two statuses that differ: "replicas is
// 0 (without the lag: 1)".
func StatusDiff(without, with any) string {
	a, b := map[string]any{}, map[string]any{}
	flatten("status", without, a)
	flatten("status", with, b)
	paths := map[string]bool{}
	for p := range a {
		paths[p] = true
	}
	for p := range b {
		paths[p] = true
	}
	var out []string
	for p := range paths {
		va, okA := a[p]
		vb, okB := b[p]
		if okA && okB && reflect.DeepEqual(va, vb) {
			continue
		}
		show := func(v any, ok bool) string {
			if !ok {
				return "absent"
			}
			return fmt.Sprintf("%v", v)
		}
		out = append(out, fmt.Sprintf("%s is %s (without the lag: %s)", p, show(vb, okB), show(va, okA)))
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// flatten adds the leaves of v, an unstructured value at path, to out.
func flatten(path string, v any, out map[string]any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			flatten(path+"."+k, x, out)
		}
	case []any:
		for i, x := range v {
			flatten(fmt.Sprintf("%s[%d]", path, i), x, out)
		}
	case nil:
	default:
		out[path] = v
	}
}

// VolatileSet stands for a value of a compared status that counts only as
// set.
const VolatileSet = "<set>"

// MaskVolatile leaves out of a status, or replaces by VolatileSet, what
// differs between two correct runs of one row: conditions and
// observedGeneration, which tell the way the controller came (a
// Deployment's Progressing condition says whether its sync created the
// ReplicaSet or found it; another writer's annotation is a new generation
// of a Deployment), times (strings in RFC 3339; a controller stamps them
// with the time of the sync) and the uid and resourceVersion of an object
// reference (a CronJob's status.active: the run's other writes move the
// resourceVersions on). What is left is what the status counts and lists.
func MaskVolatile(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == "conditions" || k == "observedGeneration" {
				delete(v, k)
				continue
			}
			if (k == "resourceVersion" || k == "uid") && x != "" {
				v[k] = VolatileSet
				continue
			}
			v[k] = MaskVolatile(x)
		}
	case []any:
		for i, x := range v {
			v[i] = MaskVolatile(x)
		}
	case string:
		if _, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return VolatileSet
		}
	}
	return v
}
