// Package records defines the plain values a sync of a controller leaves
// besides its requests, which package fixture records in a sync's Result:
// its events ([Event]), what it did to its work queues ([QueueOp]; expected
// ones from [Added], [AddedAfter], [RateLimited] and [Forgotten]), its calls
// outside Kubernetes ([Call]), the writes the server refused ([Refusal]) and
// its warnings ([Warning]); a request as the server sees it ([Request]);
// and the sweeps' reports ([SweepReport], [CacheReport], [EventReport]).
// [CustomResource] goes the other way, into fixture.WithCustomResources.
//
// The package holds values and their formatting only.
package records
