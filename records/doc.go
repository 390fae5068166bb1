// Package records defines the plain values a sync of a controller leaves
// besides its requests: the events it recorded ([Event], about an
// [ObjectRef]), what it did to its work queues ([QueueOp]; expected ones
// are made with [Added], [AddedAfter], [RateLimited] and [Forgotten]) and
// its calls outside Kubernetes ([Call]), and what the server answered
// besides objects: the writes it refused ([Refusal]) and its warnings
// ([Warning]); a request as the server sees it ([Request], what a
// fixture.Fault decides from); and the reports of the sweeps that replay a sync with a
// write failing ([SweepReport]) or its changes delivered another way
// ([EventReport]). Package fixture records them in a
// sync's Result and compares them with a table row's expectations
// (fixture.NewEvent makes an expected event with the kind its scheme
// knows). One record goes the other way, into a fixture: what a
// CustomResourceDefinition declares ([CustomResource], for
// fixture.WithCustomResources).
//
// The package holds values and their formatting only: it imports nothing
// of the module but actions (a write as a value) and the work-queue
// operations' names.
package records
