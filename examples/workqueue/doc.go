// Package workqueue shows how to unit-test a controller written in the style
// of client-go's work-queue example (k8s.io/client-go/examples/workqueue)
// with ctrltest.
//
// The controller is that example's, with one change that gives it behaviour
// worth testing: instead of printing each Pod, its sync handler labels every
// Pod it sees with example.ctrltest.dev/seen=true (through a
// kubernetes.Interface, on a deep copy of the cached Pod) and records a
// Normal "Seen" event. Its constructor keeps the example's shape, a queue, an
// indexer and an informer, plus the client and event recorder the sync
// handler needs, so a test can hand it the fixture's pieces:
//
//	pods := f.KubeInformers().Core().V1().Pods().Informer()
//	c := NewController(fixture.Queue[string](f), pods.GetIndexer(), pods, f.Kube(), f.Recorder())
//
// The tests show:
//
//   - a [fixture.Table] driving the sync handler (returned by Table, in
//     table.go, which TestSyncPod runs on client-go's fakes and the parity
//     module's tests run on a real API server too): a Pod is labelled, a
//     labelled Pod is left alone, a deleted Pod is ignored, and a conflict
//     injected with a row's Reactor comes back as the sync's error;
//   - the retry policy of handleErr, read off the fixture's work-queue spy:
//     a key that keeps failing is requeued with exponential backoff
//     (add-rate-limited 5ms, 10ms, ...) and forgotten after the fifth retry.
//
// [fixture.Table]: https://pkg.go.dev/github.com/ctrltest/ctrltest/fixture#Table
package workqueue
