// Package feed delivers a world's changes to client-go informers that are
// never started, as their reflector and processor would, on the caller's
// goroutine: each informer's store is filled from a list, then every
// change reaches it as a watch event in resourceVersion order, and every
// event handler registered on it is called for it (OnAdd with
// isInInitialList for the list, OnAdd, OnUpdate with the old and new
// object, OnDelete), so that what a controller tracks through its
// handlers (expectations, its own queue) sees what it sees on a cluster.
// The store's last-synced resourceVersion (LastStoreSyncResourceVersion)
// is what client-go's reflector records: the list's, then each event's.
//
// A watch with a selector is followed too: an object that stops matching
// leaves the store as a delete (with its last matching content at the
// event's resourceVersion, as kube-apiserver's watch cache sends it), and
// one that starts matching arrives as an add. A relist (Relist) replaces
// the store and tells handlers of the objects it no longer has through
// tombstones (cache.DeletedFinalStateUnknown), as client-go does; a resync
// (Resync) gives every cached object as an update with old == new; and
// Coalesce keeps, of each object's events, the last: the other ways
// client-go delivers a window of changes, for fixture's event-order
// sweep, which learns of each event through Informer.Tell.
//
// Delivery is deterministic: no goroutine, no sleep. Handlers are called in
// the order the feed first saw them (see clientgo.Order). A handler that
// panics is reported as an error naming the informer, the handler, the
// event and the object; the remaining handlers and events are not called.
//
// It knows nothing of fixtures: internal/world's callers (the fixture)
// decide which informers to feed and when.
package feed
