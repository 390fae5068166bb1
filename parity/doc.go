// Package parity runs ctrltest's table rows on client-go's fakes and on a
// real kube-apiserver, and reports where the two differ.
//
// Run (or Compare, for one row) runs each row twice: on the fakes, as the
// table's own test does, and on a server (adapter.WithServer), where each
// row gets namespaces of its own, its seed objects are created through the
// API (so they get the server's defaults; a status is written through the
// status subresource), the informers are started and synced, the key is
// synced once, the controller's requests are recorded as actions.Action
// values (parsed by the API server's own request-info parser), and the
// resulting objects are read back. Both sides are then compared after
// normalization (resourceVersion, uid, timestamps and managed fields do
// not count, nor an object's uid where the server copies it; names made
// from generateName compare by their generateName),
// and each divergence is named: Defaulting, Validation, GenerateName,
// ResourceVersion, StatusSplit, DeleteCollection, Finalizers, or Writes,
// Error, Events and Objects for other differences. A row fails on a
// divergence that is not declared Known, with its reason, and a Known
// divergence that no row shows fails too (remove it), unless it is known
// to occur only Sometimes (an order that varies from run to run).
//
// The server is one started here from etcd and kube-apiserver binaries
// (Start; hack/parity-binaries.sh builds them) or a cluster of the user's
// (Connect, or CTRLTEST_PARITY_KUBECONFIG with FromEnv and Main). Call
// Main from TestMain to share one server, with CRDs installed once, across
// a test binary; Shared gives it to each test, or skips the test when
// there is no server. The processes die with the test binary, however it
// ends; their files (in $TMPDIR/ctrltest-parity-*, owner-only) go with
// Stop, with SIGINT or SIGTERM during Main, and otherwise with the next
// Start once their test binary is gone. A process that exits fails Start
// (or Shared, later) at once, with its last log lines.
//
// Rows with reactors are skipped: reactors act on the fakes only. The
// sync's enqueued keys are not compared (on the server, informers enqueue
// concurrently with the sync).
//
// This package is a module of its own, so that its dependencies (the API
// server's request parsing, a server's process management) never burden
// users of ctrltest's core packages.
package parity
