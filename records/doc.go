// Package records defines the plain values a sync of a controller leaves
// besides its requests: the events it recorded ([Event], about an
// [ObjectRef]), what it did to its work queues ([QueueOp]) and its calls
// outside Kubernetes ([Call]). Package fixture records them and re-exports
// each type under the same name (fixture.Event is records.Event), with the
// constructors of expected values (fixture.NewEvent, fixture.Added, ...);
// a test needs this package only to name the types without fixture.
//
// The package holds values and their formatting only: it imports nothing
// of the module but the work-queue operations' names.
package records
