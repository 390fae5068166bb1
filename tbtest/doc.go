// Package tbtest provides testing.TB implementations for testing tests:
// [Run] runs a test body on a [Recorder] that records failures instead of
// reporting them, to assert that a check fails and with what message (a
// table of broken controllers, a check of a check); [PerOp] gives each
// iteration of a benchmark a testing.TB of its own whose cleanups run when
// the iteration ends.
//
//	rec := tbtest.Run(t, func(t testing.TB) {
//		f := fixture.New(t)
//		brokenController(f) // forgets to shut down its work queue
//	})
//	if !strings.Contains(rec.String(), "a work queue that nothing shut down") {
//		t.Errorf("the leak check did not catch the queue:\n%s", rec.String())
//	}
//
// # Limits
//
// As with testing.T, Fatal, FailNow and Skip must be called from the
// goroutine running the body (or a cleanup). A Recorder passes everything
// it does not record (Name, TempDir, Setenv, Log, ...) to the test it was
// made from, so golden files and temporary directories are the parent's.
// Neither type can be a *testing.T: code that needs t.Run or t.Parallel
// does not run on them.
//
// # When not to use
//
// To test ordinary code, use the *testing.T you were given: these types are
// for code whose job is to fail a test.
package tbtest
