// Package owner shows how to unit-test an owner → owned-objects controller
// with ctrltest, in the style of the Kubernetes deployment controller's
// tests: seed the owner and what it owns, sync the owner's key, and compare
// the creates, updates, deletes and status updates the controller made with
// expected actions built from expected objects.
//
// The controller is a much reduced Deployment controller on built-in types.
// For each Deployment it keeps exactly one ReplicaSet that the Deployment
// controls (through a controller owner reference):
//
//   - none: it creates <deployment>-rs with the Deployment's replicas,
//     selector and pod template;
//   - one with the wrong replicas: it updates it;
//   - more than one: it keeps the oldest and deletes the others;
//
// and finally it copies the kept ReplicaSet's status.replicas into the
// Deployment's status (an UpdateStatus) when they differ. ReplicaSets that
// the Deployment does not control are never touched.
//
// Only the sync handler is shown, the part a table test drives; the work
// queue and event handlers around it are those of any client-go controller
// (see the workqueue example).
//
// The scenarios are a [fixture.Table], returned by Table (table.go), which
// TestSync runs on client-go's fakes and the parity module's tests run on a
// real API server too. Its expected actions are built with actions.Create,
// actions.Update, actions.Delete and actions.UpdateStatus from objects made
// by two small helpers (the way a reader would describe the expected
// ReplicaSet), and one row uses actions.Unordered: in which order the extra
// ReplicaSets are deleted does not matter.
//
// [fixture.Table]: https://pkg.go.dev/github.com/ctrltest/ctrltest/fixture#Table
package owner
