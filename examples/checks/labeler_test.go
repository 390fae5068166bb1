package checks

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctrltest/ctrltest/fixture"
)

// TestLabeler is ordinary table testing, on LabelerTable (tables.go), with
// the fault sweep on: each row is run again once per write and per fault
// kube-apiserver could answer it with (here, an update carrying the
// resourceVersion it read: conflict, server error, not-found), on a fresh
// world, with that write
// failing, and fails if the sync then returns nil, unless the row declares
// the fault handled.
func TestLabeler(t *testing.T) {
	LabelerTable().Run(t)
}

// TestLabelerSwallowedErrorIsCaught sweeps both variants and reads the
// report: the broken Labeler returns nil when its update fails with a
// conflict or a server error.
func TestLabelerSwallowedErrorIsCaught(t *testing.T) {
	for _, tt := range []struct {
		variant       Variant
		wantSwallowed []string // the faults swallowed
	}{
		{Correct, nil},
		{Broken, []string{"conflict", "server-error"}},
	} {
		t.Run(tt.variant.String(), func(t *testing.T) {
			report := fixture.Table[string]{Wire: labeler(tt.variant)}.FaultSweep(t, labelsRow)
			var swallowed []string
			for _, o := range report.Swallowed() {
				swallowed = append(swallowed, o.Fault)
			}
			if d := cmp.Diff(tt.wantSwallowed, swallowed); d != "" {
				t.Errorf("swallowed faults (-want +got):\n%s\n%s", d, report)
			}
			if tt.variant == Broken && !strings.Contains(report.String(), "SWALLOWED") {
				t.Errorf("the report does not say SWALLOWED:\n%s", report)
			}
			t.Logf("%s", report)
		})
	}
}
