package examples

import (
	"testing"

	"github.com/ctrltest/ctrltest/examples/dynamic"
	"github.com/ctrltest/ctrltest/parity"
)

// TestDynamicParity runs the dynamic example's scenarios
// (examples/dynamic: a controller on the dynamic and metadata clients and
// informers) on the fakes and on a real API server, where the fixture's
// Dynamic and Metadata are real clients and their informers run. The
// writes agree on every row; the stored objects differ by the server's
// defaults only (of the Deployment and of the Namespace, which the server
// also labels with its name).
func TestDynamicParity(t *testing.T) {
	tb := dynamic.Table()
	known := append(seedingRows(tb, parity.Defaulting,
		"the server defaults Deployments, pod templates and Namespaces; the controller reads annotations and labels only"),
		seedingRows(tb, parity.Objects,
			"the server labels every Namespace with kubernetes.io/metadata.name")...)
	parity.Run(t, parity.Shared(t), tb, known...)
}
