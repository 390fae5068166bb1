package sweeps

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMaskVolatile: a status compared between two runs keeps what it
// counts and lists, and leaves out or masks what differs between correct
// runs.
func TestMaskVolatile(t *testing.T) {
	status := func(started, rv string) map[string]any {
		return map[string]any{
			"replicas":           int64(2),
			"observedGeneration": int64(3),
			"conditions":         []any{map[string]any{"type": "Ready", "reason": "Found"}},
			"startTime":          started,
			"active":             []any{map[string]any{"name": "job-1", "uid": "u-" + rv, "resourceVersion": rv}},
			"message":            "not a time",
		}
	}
	a := MaskVolatile(status("2026-01-01T00:00:00Z", "3"))
	b := MaskVolatile(status("2026-11-25T22:00:00Z", "7"))
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("statuses of two correct runs differ (-a +b):\n%s", d)
	}
	want := map[string]any{
		"replicas":  int64(2),
		"startTime": VolatileSet,
		"active":    []any{map[string]any{"name": "job-1", "uid": VolatileSet, "resourceVersion": VolatileSet}},
		"message":   "not a time",
	}
	if d := cmp.Diff(want, a); d != "" {
		t.Errorf("MaskVolatile (-want +got):\n%s", d)
	}
	c := status("2026-01-01T00:00:00Z", "3")
	c["replicas"] = int64(1)
	if reflect.DeepEqual(a, MaskVolatile(c)) {
		t.Error("a status that counts another number of replicas compares equal")
	}
}
