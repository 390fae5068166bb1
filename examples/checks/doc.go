// Package checks shows each of ctrltest's checks beyond one sync catching a
// real bug.
//
// Every controller here is small, works on built-in types and comes in two
// variants, chosen by a [Variant] argument of its constructor: [Correct], as
// it should be written, and [Broken], the same code with one deliberate bug
// that a unit test of one sync does not see. The bug is described in the
// type's documentation and marked "BUG (Broken)" in the code.
//
//	controller       bug of the Broken variant               caught by
//	StatusWriter     stamps a new time in its status on      the idempotency check
//	                 every sync (a hot loop)                 (on by default in table rows;
//	                                                          fixture.CheckIdempotent)
//	Labeler          logs a failed update and returns nil    the fault sweep
//	                 (the key is never retried)              (Checks.FaultSweep, Table.FaultSweep)
//	ReplicaFloor     changes the Deployment its lister       the cache-mutation check
//	                 returned (the shared informer cache)    (on by default in fixture.Sync)
//	ReplicaSetOwner  its ReplicaSet handler forgets updates  an informer-mode test of the
//	                 (the owner is not synced again)         handlers (fixture.AwaitEnqueued)
//	Adopter          writes twice from one copy (a stale     the API server model (on by
//	                 resourceVersion on the second write)    default): a Conflict
//	Canary           names its Pod by generateName (a sync   the stale-cache sweep
//	                 its cache lags makes a second one)      (Checks.CacheSweep): own-writes
//	Tagger           clears the resourceVersion (overwrites  the stale-cache sweep:
//	                 what its cache has not shown yet)       other-writer
//	Reaper           takes a cache miss for a deletion       the stale-cache sweep:
//	                 (deletes the Pods of a new Deployment)  not-in-cache
//	Census           counts Pods from its cache into a       the stale-cache sweep:
//	                 status, and watches no Pod (the count   own-writes (wrong status)
//	                 stays stale)
//	Publisher        its ConfigMap handler has no update     the event-order sweep
//	                 and panics on a tombstone (it expects   (Checks.EventSweep):
//	                 watch events only)                      coalesced and relist
//
// A sixth controller, Exporter, has no broken variant: it needs two syncs to
// settle a new Deployment, and its test follows it to the end with
// Row.WantObjects (see fixture.Converge). That test also shows the
// hot-looping StatusWriter never settling.
//
// The stale-cache sweep's four examples are tested in caches_test.go: a
// table of each Correct controller with Checks.CacheSweep on, and one test that
// sweeps both variants of each and reads the reports. The event-order
// sweep's, in publisher_test.go, likewise. Their tables stay in the tests:
// the sweeps feed the informers, which a real API server's parity run
// does not.
//
// The tests come in pairs. The first of each pair is ordinary ctrltest
// usage, the part to copy: the Correct controller passes the check. Its
// table is returned by StatusWriterTable, LabelerTable, ReplicaFloorTable,
// ReplicaSetOwnerTable or AdopterTable (tables.go), so that the parity
// module's tests run it on a real API server too. The Exporter's table
// stays in its test: parity runs one sync of each row, and puts each row in
// fresh namespaces, while the Exporter's exports live in a fixed namespace
// and are named after their Deployment's namespace. The second test of
// each pair shows the Broken controller being caught, on the check's pure
// form where it has one (the report of fixture.CheckIdempotent or
// Table.FaultSweep) and otherwise by running the test body on a testing.TB
// that records failures instead of reporting them (see mustCatch in
// checks_test.go). Should a check stop catching its bug, the second test
// fails.
package checks
