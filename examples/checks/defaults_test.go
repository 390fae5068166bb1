package checks

import (
	"testing"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/tbtest"
)

// TestDefaultChecksCatchShippedMistakes: the mistakes controllers ship
// most (an update that clobbers another writer, a create without
// expectations, a swallowed write failure, a delete handler blind to
// tombstones) each fail a plain table row, with no Checks set: every
// check runs by default. Under go test -short, the quick loop, the sweeps
// do not run and the same rows pass.
func TestDefaultChecksCatchShippedMistakes(t *testing.T) {
	for _, tt := range []struct {
		name     string
		wire     func(Variant) func(*fixture.Fixture) fixture.SyncFunc[string]
		row      fixture.Row
		broken   func(fixture.Row) fixture.Row // the row the broken variant passes under -short
		caughtBy string
	}{
		{"an update that clobbers another writer", tagger, taggerRow, nil, "LOST UPDATE"},
		{"a create without expectations", canary, canaryRow, generatedCanary, "DUPLICATE"},
		{"a swallowed write failure", labeler, labelsRow, nil, "SWALLOWED"},
		{"a delete handler blind to tombstones", publisher, republishRow, nil, "PANIC"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			row := tt.row
			row.Checks = fixture.Checks{} // the defaults
			correct := tbtest.Run(t, func(t testing.TB) { fixture.Table[string]{Wire: tt.wire(Correct)}.RunRow(t, row) })
			if correct.Failed() {
				t.Fatalf("the correct controller failed:\n%s", correct)
			}
			if tt.broken != nil {
				row = tt.broken(row)
			}
			broken := func(t testing.TB) { fixture.Table[string]{Wire: tt.wire(Broken)}.RunRow(t, row) }
			if testing.Short() {
				if rec := tbtest.Run(t, broken); rec.Failed() {
					t.Errorf("under -short the sweeps do not run, yet the row failed:\n%s", rec)
				}
				return
			}
			mustCatch(t, tt.caughtBy, broken)
		})
	}
}

// generatedCanary is the canary row with the write the Broken Canary
// makes: its Pod named from a generateName.
func generatedCanary(row fixture.Row) fixture.Row {
	pod := canaryPod(deployment(1))
	pod.Name, pod.GenerateName = "", pod.Name+"-"
	row.WantActions = []actions.Action{actions.Create(pod)}
	return row
}
