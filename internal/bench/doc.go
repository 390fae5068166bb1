// Package bench holds ctrltest's benchmark suite (issue 5); it has no
// non-test code.
//
// Its test files run, in one process, ctrltest and a hand-written fixture in
// the style of kubernetes/sample-controller's controller_test.go on the same
// controller (controller.Controller) and the same case: a Foo whose
// Deployment is created, then whose status is updated. They compare the two
// per backend (client-go's NewSimpleClientset and the field-managed
// NewClientset), with and without started informers, while 0 to 10,000
// unrelated objects are seeded; they also measure the golden-file comparison,
// a 1,000-row table, and check that no goroutine is left behind.
//
// BenchmarkFullRow (issue 11) times a whole fixture.Table row (RunRow with
// every default check, on the server model) against the hand-written
// fixture's single sync, on the reference controller and on the owner
// example (examples/owner, a Deployment → ReplicaSet controller, with a
// hand-written fixture in the style of kube-controller-manager's
// deployment_controller_test.go).
//
// Run them with
//
//	make bench BENCH=. PKGS=./internal/bench
//
// docs/performance.md records the results and how to reproduce them.
package bench
