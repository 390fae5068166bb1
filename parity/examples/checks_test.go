package examples

import (
	"testing"

	"github.com/ctrltest/ctrltest/examples/checks"
	"github.com/ctrltest/ctrltest/parity"
)

// The Correct controllers of examples/checks, on the fakes and on a real
// API server. Each of their rows seeds a Deployment, and the server
// defaults every Deployment (rollout strategy, revision history, progress
// deadline, and pod template fields such as imagePullPolicy and
// restartPolicy), the fakes none: each test lists that divergence for the
// whole table.
//
// The Exporter is not here (its table is not exported). Its rows follow it
// over two syncs (Row.WantObjects); parity runs one. It writes its exports
// to the fixed namespace "exports" and names them <namespace>.<name> after
// their Deployment, while parity runs each row in fresh namespaces: on the
// server the export of default/web is named ct-<run>-<n>-default.web and
// created in "exports", which does not exist there (the seeded export is in
// ct-<run>-<n>-exports), and the sync fails. And a server ignores the
// deletion timestamp that one of its rows seeds.

// TestStatusWriterParity: the rows seed a Deployment at generation 2; a
// server ignores metadata.generation on create and starts a new Deployment
// at 1. So the controller observes generation 1 there: it reports 1 where
// the fakes report 2, and finds the status of "leaves a current status
// alone" (observedGeneration 2) not current, and writes it. A generation
// beyond 1 cannot be seeded on a server: the divergences are known.
func TestStatusWriterParity(t *testing.T) {
	const generation = "the server starts a new Deployment at generation 1, ignoring the seed's 2"
	parity.Run(t, parity.Shared(t), checks.StatusWriterTable(),
		parity.Known{Kind: parity.Defaulting, Reason: "the server defaults Deployments; the controller writes the status only"},
		parity.Known{Kind: parity.Writes, Reason: generation},
		parity.Known{Kind: parity.Objects, Reason: generation},
	)
}

// TestLabelerParity: the server's defaults only. (The table's fault sweep
// runs on the fakes only.)
func TestLabelerParity(t *testing.T) {
	parity.Run(t, parity.Shared(t), checks.LabelerTable(), parity.Known{
		Kind:   parity.Defaulting,
		Reason: "the server defaults Deployments; the controller adds a label only",
	})
}

// TestReplicaFloorParity: the server's defaults only.
func TestReplicaFloorParity(t *testing.T) {
	parity.Run(t, parity.Shared(t), checks.ReplicaFloorTable(), parity.Known{
		Kind:   parity.Defaulting,
		Reason: "the server defaults Deployments; the controller compares replicas only",
	})
}

// TestReplicaSetOwnerParity: the server's defaults only, for the
// Deployment and for the pod templates of its ReplicaSets. Parity found the
// row's first seeds refused: ReplicaSets with no selector and no pod
// template, and with more ready replicas than replicas in their status.
// Seeded as a server accepts them, the controller's write was refused in
// turn ("status.readyReplicas: cannot be greater than status.replicas"):
// the seeded Deployment's status counted no replicas, where the Deployment
// controller would have counted those of its ReplicaSets. The row now seeds
// what a server accepts and a cluster would hold.
func TestReplicaSetOwnerParity(t *testing.T) {
	parity.Run(t, parity.Shared(t), checks.ReplicaSetOwnerTable(), parity.Known{
		Kind:   parity.Defaulting,
		Reason: "the server defaults Deployments and pod templates; the controller sums ready replicas only",
	})
}

// TestAdopterParity: the server's defaults only. On the server the
// Adopter's two writes pass its resourceVersion checks, as they do on the
// fakes with fixture.ResourceVersions (which the table turns on).
func TestAdopterParity(t *testing.T) {
	parity.Run(t, parity.Shared(t), checks.AdopterTable(), parity.Known{
		Kind:   parity.Defaulting,
		Reason: "the server defaults Deployments; the controller adds a label and a condition only",
	})
}
