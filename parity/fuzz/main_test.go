// Package fuzz is the differential fuzzer of the server model: seeded,
// reproducible random request sequences over built-in and custom
// resources, run on the fixture's default world (internal/apiserver
// behind client-go's fakes) and on a real kube-apiserver, compared after
// every request. A divergence that no known class accepts fails the test,
// with the shortest sequence that still shows it. See docs/parity.md,
// "Differential fuzzer".
package fuzz

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/ctrltest/ctrltest/parity"
)

// The CRDs of the custom resources: Foo has a status subresource, Gateway
// none, Widget a status and a scale subresource (and defaults, an enum, a
// CEL rule and a selectable field).
var crdFiles = []string{
	"../../controller/artifacts/crd.yaml",
	"../semantics/testdata/gateways.yaml",
	"../../crd/testdata/widgets.yaml",
}

// TestMain shares one server, with the CRDs installed, across the tests,
// and fails the run when a goroutine outlives them.
func TestMain(m *testing.M) {
	code := parity.Main(m, crdFiles...)
	if err := goleak.Find(); code == 0 && err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}
