package examples

import (
	"testing"

	"github.com/ctrltest/ctrltest/examples/workqueue"
	"github.com/ctrltest/ctrltest/parity"
)

// TestWorkqueueParity runs the work-queue example's scenarios
// (examples/workqueue) on the fakes and on a real API server; the row
// whose reactor injects a conflict is skipped.
//
// The rows that seed the Pod show the server's defaults (imagePullPolicy,
// restartPolicy, dnsPolicy, terminationGracePeriodSeconds, ...,
// status.qosClass). The controller updates the Pod it read, so its update
// carries them too. Harmless: it adds one label and sends everything else
// back as it found it. (On a cluster, the ServiceAccount admission plugin
// also adds a token volume and tolerations: the same kind of divergence.)
func TestWorkqueueParity(t *testing.T) {
	tb := workqueue.Table()
	parity.Run(t, parity.Shared(t), tb, seedingRows(tb, parity.Defaulting,
		"the server defaults Pods; the controller adds a label only")...)
}
