package examples

import (
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/parity"
)

// seedingRows declares a divergence of kind, with its reason, for each row
// of tb that parity compares (it has no reactors) and that seeds objects:
// for a divergence that comes with the seeds, such as the server's
// defaults, when some rows seed nothing and so cannot show it.
func seedingRows[K fixture.Key](tb fixture.Table[K], kind parity.Kind, reason string) []parity.Known {
	var known []parity.Known
	for _, row := range tb.Rows {
		if len(row.Objects) > 0 && len(row.Reactors) == 0 {
			known = append(known, parity.Known{Row: row.Name, Kind: kind, Reason: reason})
		}
	}
	return known
}
