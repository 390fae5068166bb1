// Package companions is kube-controller-manager's garbage collector and
// namespace controller, and the namespace lifecycle admission of
// kube-apiserver, for a fixture's world: the parts of a cluster that act
// on what a controller writes without being the controller
// (fixture.WithGarbageCollector, fixture.WithNamespaceLifecycle).
//
// They follow kube-controller-manager v1.37: the garbage collector's
// attemptToDeleteItem, processDeletingDependentsItem and orphanDependents
// (pkg/controller/garbagecollector), the namespace controller's deleter
// (pkg/controller/namespace/deletion), and the admission plugin
// k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle. They read the
// world as stored and write through a Store, as another client of the
// server: their writes are not the controller's requests.
//
// Limits: they run in rounds on the test's goroutine, to a fixed point,
// when the fixture settles the world (not on a timer); each round sees the
// world as the previous one left it, in a sorted order, so the order of
// their writes is deterministic but not the order of a cluster's workers.
// The garbage collector's graph is rebuilt from the stored world each
// round; it keeps no absent-owner cache. The namespace controller deletes
// the content of the resources the world holds objects of (a cluster's
// deletes every resource discovery lists).
//
// Use it through the fixture only; it imports nothing of the module.
package companions
