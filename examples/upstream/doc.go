// Package upstream is a controller written the way upstream controllers
// are (kubernetes/sample-controller, kube-controller-manager's): its
// constructor makes its own work queue (workqueue.NewTypedRateLimitingQueue)
// and event broadcaster (record.NewBroadcaster, recording to the kube
// clientset it is given), and its sync handler is unexported.
//
// Its tests, in this package, use it unchanged: the events it records
// through its own broadcaster are in each sync's Result.Events (the
// fixture's kube clientset is the broadcaster's sink), its reads are
// checked with Row.WantReads, and the fixture's goroutine-leak check makes
// sure the tests shut down the queue and broadcaster it made
// (t.Cleanup(c.Shutdown)). controller_test.go shows the check catching a
// test that forgets to.
package upstream
