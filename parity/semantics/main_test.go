// Package semantics is the semantics suite: request sequences on built-in
// types and custom resources, run on the fixture's default world and on a
// real kube-apiserver, whose observations (the error, whether the
// resourceVersion changed, metadata.generation, deletion, generated names,
// and the stored objects at the end) must agree, or be listed as Known
// with a reason. See docs/parity.md, "Semantics suite".
package semantics

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/ctrltest/ctrltest/parity"
)

// TestMain shares one server, with the Foo and Gateway CRDs installed,
// across the tests, and fails the run when a goroutine outlives them.
func TestMain(m *testing.M) {
	code := parity.Main(m, "../../controller/artifacts/crd.yaml", "testdata/gateways.yaml")
	if err := goleak.Find(); code == 0 && err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}
