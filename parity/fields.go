package parity

import (
	"fmt"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
)

// FieldDiff is one field in which an object on the fakes and the same
// object on the server differ (see DiffFields).
type FieldDiff struct {
	// Path is the field's path, as "spec.template.metadata.labels.app" or
	// "spec.containers[0].image".
	Path string
	// Fakes and Server are the field's values, as JSON values (maps,
	// slices, strings, int64, float64, bool), nil when absent.
	Fakes, Server any
	// InFakes and InServer report whether the field is present on each
	// side.
	InFakes, InServer bool
}

// Defaulted reports whether the server set a field the fakes left empty,
// as its defaults do; parity reports such differences as Defaulting.
func (d FieldDiff) Defaulted() bool { return isZero(d.Fakes) && !isZero(d.Server) }

// String formats the difference as "path: fakes <value>, server <value>".
func (d FieldDiff) String() string {
	return fmt.Sprintf("%s: fakes %s, server %s", d.Path, show(d.Fakes, d.InFakes), show(d.Server, d.InServer))
}

// DiffFields lists the fields in which two objects differ, after the
// normalization of parity's reports: resourceVersion, uid, generation,
// timestamps and managed fields do not count, a deletion timestamp counts
// only as present or absent, and a name made from generateName counts as
// "<generateName>*". A field empty or absent on both sides does not
// differ. The list is sorted by path.
func DiffFields(fakes, server k8sruntime.Object) []FieldDiff {
	var out []FieldDiff
	for _, d := range diffObjects(fakes, server) {
		out = append(out, FieldDiff{Path: d.path, Fakes: d.fakes, Server: d.server, InFakes: d.inFakes, InServer: d.inSrv})
	}
	return out
}
