// Package actions turns the requests a controller made through client-go's
// fake clientsets into plain values and compares them with expectations.
//
// An [Action] has named fields (verb, resource, subresource, namespace, name,
// object, patch, field manager). Recorded actions come from [From]; expected
// ones from a few constructors that derive the resource, namespace and name
// from an object:
//
//	want := []actions.Action{
//		actions.Create(newDeployment(foo)),
//		actions.UpdateStatus(fooWithStatus),
//	}
//
// [Diff] returns "" exactly when the recorded actions match; otherwise a
// readable report: both lists one action a line
// (`create apps/v1 deployments default/example-foo`), what is missing and
// what is unexpected by index, and a go-cmp diff (-want +got) for each object
// that differs. [Assert] is a thin wrapper that reports through t.Errorf.
//
// Matching is ordered by default (order across verbs counts); [Unordered],
// [Subset] (only the fields set in the expected object count), [CmpOptions]
// and [Action.Where] loosen it. Volatile metadata is normalized away first
// ([NormalizeVolatile]); the timestamps of status conditions, which
// controllers stamp with the time of the sync, count as set or not set
// ([KeepConditionTimes] compares them by value); patches are compared as
// JSON documents, and patch type and subresource always count.
//
// # Limits
//
// The constructors know the resources of client-go's built-in types. For
// custom resources they need a [Resolver]: the fixture package supplies one
// that knows every clientset it registered, so compare through the fixture
// (or pass [WithResolver]). An expected action that cannot be resolved is
// reported by Diff; it never matches silently.
//
// # When not to use
//
// For asserting the state a controller leaves behind rather than the
// requests it made, read the objects back from the clientset instead.
package actions
