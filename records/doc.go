// Package records defines the plain values a sync of a controller leaves
// besides its requests: the events it recorded ([Event], about an
// [ObjectRef]), what it did to its work queues ([QueueOp]; expected ones
// are made with [Added], [AddedAfter], [RateLimited] and [Forgotten]) and
// its calls outside Kubernetes ([Call]). Package fixture records them in a
// sync's Result and compares them with a table row's expectations
// (fixture.NewEvent makes an expected event with the kind its scheme
// knows).
//
// The package holds values and their formatting only: it imports nothing
// of the module but the work-queue operations' names.
package records
