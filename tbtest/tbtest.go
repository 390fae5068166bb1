package tbtest

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/ctrltest/ctrltest/internal/cleanups"
)

// Recorder is a testing.TB that records failures instead of reporting
// them. Make one with [Run]. Everything it does not record (Name, TempDir,
// Setenv, ...) goes to the test it was made from.
type Recorder struct {
	testing.TB
	ctx    context.Context
	cancel context.CancelFunc

	cleanups cleanups.Stack

	mu       sync.Mutex
	failed   bool
	stopped  bool
	skipped  bool
	messages []string
}

var _ testing.TB = (*Recorder)(nil)

// Run runs body on a new Recorder, in a goroutine of its own as testing runs
// a test, so that Fatal, FailNow and Skip end body as they end a test; then
// it cancels the recorder's context and runs its cleanups, last registered
// first. It returns when they are done. A panic in body or a cleanup is
// recorded as a failure.
//
//	rec := tbtest.Run(t, func(t testing.TB) { fixture.Sync(fixture.New(t), brokenSync, "default/x") })
//	if !rec.Failed() || !strings.Contains(rec.String(), "changed objects") { t.Errorf(...) }
func Run(t testing.TB, body func(t testing.TB)) *Recorder {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	r := &Recorder{TB: t, ctx: ctx, cancel: cancel}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.guard(func() { body(r) })
		r.cancel()
		r.runCleanups()
	}()
	<-done
	return r
}

// guard runs fn, recording a panic as a failure; a Goexit (Fatal, Skip)
// just ends fn.
func (r *Recorder) guard(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				r.record(true, fmt.Sprintf("panic: %v\n%s", p, debug.Stack()))
			}
		}()
		fn()
	}()
	<-done
}

// runCleanups runs the cleanups, last registered first, each guarded, so
// that one that fails or stops does not keep the others from running.
func (r *Recorder) runCleanups() { r.cleanups.Run(r.guard) }

func (r *Recorder) record(fail bool, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if fail {
		r.failed = true
	}
	r.messages = append(r.messages, msg)
}

// Failed reports whether the body or a cleanup failed.
func (r *Recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// Stopped reports whether the body or a cleanup called Fatal, Fatalf or
// FailNow.
func (r *Recorder) Stopped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

// Skipped reports whether the body called Skip, Skipf or SkipNow.
func (r *Recorder) Skipped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skipped
}

// Messages returns the failure messages (Error, Errorf, Fatal, Fatalf and
// recorded panics), in order. Log messages are not among them.
func (r *Recorder) Messages() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	out = append(out, r.messages...)
	return out
}

// String returns the failure messages, joined by newlines.
func (r *Recorder) String() string { return strings.Join(r.Messages(), "\n") }

// Context returns a context cancelled just before the cleanups run.
func (r *Recorder) Context() context.Context { return r.ctx }

// Cleanup registers fn to run after the body, last registered first.
func (r *Recorder) Cleanup(fn func()) { r.cleanups.Push(fn) }

// Helper does nothing: a recorder prints no file and line.
func (r *Recorder) Helper() {}

// Error records a failure formatted as fmt.Sprintln does, without the newline.
func (r *Recorder) Error(args ...any) { r.record(true, sprintln(args...)) }

// Errorf records a failure.
func (r *Recorder) Errorf(format string, args ...any) {
	r.record(true, fmt.Sprintf(format, args...))
}

// Fail marks the recorder failed without a message.
func (r *Recorder) Fail() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
}

// FailNow marks the recorder failed and stops the calling goroutine, which
// must be the body's (as with testing.T).
func (r *Recorder) FailNow() {
	r.mu.Lock()
	r.failed, r.stopped = true, true
	r.mu.Unlock()
	runtime.Goexit()
}

// Fatal is Error followed by FailNow.
func (r *Recorder) Fatal(args ...any) {
	r.Error(args...)
	r.FailNow()
}

// Fatalf is Errorf followed by FailNow.
func (r *Recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.FailNow()
}

// Skip logs args and stops the body as skipped.
func (r *Recorder) Skip(args ...any) {
	r.Log(args...)
	r.SkipNow()
}

// Skipf logs and stops the body as skipped.
func (r *Recorder) Skipf(format string, args ...any) {
	r.Logf(format, args...)
	r.SkipNow()
}

// SkipNow stops the body as skipped.
func (r *Recorder) SkipNow() {
	r.mu.Lock()
	r.skipped = true
	r.mu.Unlock()
	runtime.Goexit()
}

func sprintln(args ...any) string {
	return strings.TrimSuffix(fmt.Sprintln(args...), "\n")
}
