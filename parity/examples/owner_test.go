package examples

import (
	"testing"

	"github.com/ctrltest/ctrltest/examples/owner"
	"github.com/ctrltest/ctrltest/parity"
)

// TestOwnerParity runs the owner example's scenarios (examples/owner) on
// the fakes and on a real API server.
//
// Every row that seeds a Deployment shows the server's defaults: for the
// Deployment (rollout strategy, revision history, progress deadline) and
// for the pod template it shares with its ReplicaSets (imagePullPolicy,
// restartPolicy, dnsPolicy, ...), which the controller copies into the
// ReplicaSet it creates. Harmless: the controller compares replicas only.
//
// One row differs in substance. "deletes the ReplicaSets beyond the
// oldest" keeps the oldest ReplicaSet by creation timestamp, and its seeds
// set those timestamps; a server ignores them and stamps its own, to the
// second, as it creates the seeds. There the ReplicaSets are created in
// the same second (or web-rs, created last, is the youngest), so the
// controller keeps web-1, first by name, deletes web-2 and web-rs, and
// resets the Deployment's status to web-1's replicas (0). The row cannot
// be seeded on a server as it is on the fakes: the divergence is known.
func TestOwnerParity(t *testing.T) {
	tb := owner.Table()
	const oldest = "deletes the ReplicaSets beyond the oldest"
	const stamped = "the server stamps creationTimestamp itself, ignoring the seeds': web-1, first by name, is the oldest there"
	known := append(seedingRows(tb, parity.Defaulting,
		"the server defaults Deployments and pod templates; the controller compares replicas only"),
		parity.Known{Row: oldest, Kind: parity.Writes, Reason: stamped},
		parity.Known{Row: oldest, Kind: parity.Objects, Reason: stamped},
	)
	parity.Run(t, parity.Shared(t), tb, known...)
}
