package examples

import (
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/parity"
)

// seedingRows declares a divergence of kind, with its reason, for each row
// of tb that seeds objects (a row parity skips, one with reactors, does
// not judge its own; an object fixture.Absent declares is not seeded):
// for a divergence that comes with the seeds, such as the server's
// defaults, when some rows seed nothing and so cannot show it.
func seedingRows[K fixture.Key](tb fixture.Table[K], kind parity.Kind, reason string) []parity.Known {
	var known []parity.Known
	for _, row := range tb.Rows {
		if slices.ContainsFunc(row.Objects, seeded) {
			known = append(known, parity.Known{Row: row.Name, Kind: kind, Reason: reason})
		}
	}
	return known
}

// seeded reports whether obj is a seed, not an object fixture.Absent
// declares.
func seeded(obj runtime.Object) bool {
	return reflect.TypeOf(obj) != reflect.TypeOf(fixture.Absent(nil))
}
