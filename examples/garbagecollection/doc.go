// Package garbagecollection shows the Foo controller (the reference
// controller, which owns a Deployment per Foo) with the cluster's other
// controllers beside it: fixture.WithGarbageCollector, so that a Foo's
// Deployment goes when the Foo does, as kube-controller-manager's garbage
// collector makes it go, and fixture.WithNamespaceLifecycle, so that a
// terminating namespace refuses new content and is emptied and removed.
//
// Their work is not the controller's: it reaches the controller's
// informers as watch events and shows in the rows' WantObjects, never in
// WantActions. See docs/companions.md.
package garbagecollection
