// Package crdschema runs rows whose custom resources have a CRD with
// defaults, bounds, a CEL rule and a transition rule (the crd module's
// testdata/foos.yaml) on the fixture's world with the crd module's option
// and on a real kube-apiserver with that CRD installed: no divergence.
package crdschema

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/ctrltest/ctrltest/parity"
)

// manifest is the CRD both sides use; widgets, that of a custom resource
// with no clientset and no Go type; contents, that of a Go type with a
// pointer field that encodes as null (nulls_test.go).
const (
	manifest = "../../crd/testdata/foos.yaml"
	widgets  = "../../crd/testdata/widgets.yaml"
	contents = "../../crd/testdata/contents.yaml"
)

// TestMain shares one server, with the CRD installed, across the tests,
// and fails the run when a goroutine outlives them.
func TestMain(m *testing.M) {
	code := parity.Main(m, manifest, widgets, contents)
	if err := goleak.Find(); code == 0 && err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}
