package checks

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

func labeler(v Variant) func(f *fixture.Fixture) fixture.SyncFunc[string] {
	return func(f *fixture.Fixture) fixture.SyncFunc[string] {
		return NewLabeler(f.Kube(), f.KubeInformers().Apps().V1().Deployments(), v).Sync
	}
}

func labelled() *appsv1.Deployment {
	d := deployment(1)
	d.Labels = map[string]string{ManagedLabel: "true"}
	return d
}

// labelsRow is the scenario both variants are swept over.
var labelsRow = fixture.Row{
	Name:        "labels a Deployment",
	Objects:     []runtime.Object{deployment(1)},
	Key:         "default/web",
	WantActions: []actions.Action{actions.Update(labelled())},
	// Not-found on the update means the Deployment was deleted during the
	// sync: nothing is left to label, so returning nil is right.
	HandlesFault: func(_ actions.Action, err error) bool { return apierrors.IsNotFound(err) },
}

// TestLabeler is ordinary table testing with the fault sweep on: each row
// is run again once per write and per fault (conflict, server error,
// not-found), on a fresh world, with that write failing, and fails if the
// sync then returns nil, unless the row declares the fault handled.
func TestLabeler(t *testing.T) {
	fixture.Table[string]{
		Wire:  labeler(Correct),
		Sweep: true,
		Rows: []fixture.Row{labelsRow, {
			Name:    "leaves a labelled Deployment alone",
			Objects: []runtime.Object{labelled()},
			Key:     "default/web",
		}},
	}.Run(t)
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
