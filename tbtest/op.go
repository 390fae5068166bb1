package tbtest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ctrltest/ctrltest/internal/cleanups"
)

// Op is the testing.TB of one iteration of a benchmark: what a subtest is
// to a table test. It has its own context and cleanups, which Done runs, so
// that each iteration tears down what it built (a fixture, its informers,
// its queues) instead of piling it up until the benchmark ends:
//
//	for b.Loop() {
//		op := tbtest.PerOp(b)
//		fixture.Sync(fixture.New(op), c.Sync, "default/foo")
//		op.Done()
//	}
//
// It keeps its log in memory, as testing.T does until a test ends, and
// prints it through the benchmark only when the iteration failed (a
// benchmark's own Log is always printed). Failures go to the benchmark.
type Op struct {
	testing.TB
	ctx    context.Context
	cancel context.CancelFunc

	cleanups cleanups.Stack

	mu     sync.Mutex
	log    []string
	failed bool
	done   bool
}

var _ testing.TB = (*Op)(nil)

// PerOp returns the testing.TB of one iteration of the benchmark (or test)
// tb. Call Done when the iteration ends.
func PerOp(tb testing.TB) *Op {
	ctx, cancel := context.WithCancel(tb.Context())
	return &Op{TB: tb, ctx: ctx, cancel: cancel}
}

// Done ends the iteration: it cancels its context, then runs its cleanups,
// last registered first, and, if the iteration failed, prints its log
// through the benchmark. Later calls do nothing.
func (o *Op) Done() {
	o.mu.Lock()
	if o.done {
		o.mu.Unlock()
		return
	}
	o.done = true
	o.mu.Unlock()
	o.cancel()
	o.cleanups.Run(nil)
	o.mu.Lock()
	log, failed := o.log, o.failed
	o.log = nil
	o.mu.Unlock()
	if failed {
		for _, l := range log {
			o.TB.Log(l)
		}
	}
}

// Context returns the iteration's context, cancelled by Done.
func (o *Op) Context() context.Context { return o.ctx }

// Cleanup registers fn to run when the iteration ends (Done).
func (o *Op) Cleanup(fn func()) { o.cleanups.Push(fn) }

// Helper does nothing.
func (o *Op) Helper() {}

// Log keeps args in the iteration's log.
func (o *Op) Log(args ...any) { o.keep(sprintln(args...)) }

// Logf keeps a line in the iteration's log.
func (o *Op) Logf(format string, args ...any) { o.keep(fmt.Sprintf(format, args...)) }

// Logged returns the iteration's log so far, a line per Log call.
func (o *Op) Logged() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var b strings.Builder
	for _, l := range o.log {
		b.WriteString(strings.TrimSuffix(l, "\n"))
		b.WriteByte('\n')
	}
	return b.String()
}

func (o *Op) keep(line string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.log = append(o.log, line)
}

func (o *Op) fail() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.failed = true
}

// Error reports a failure through the benchmark.
func (o *Op) Error(args ...any) {
	o.fail()
	o.TB.Error(args...)
}

// Errorf reports a failure through the benchmark.
func (o *Op) Errorf(format string, args ...any) {
	o.fail()
	o.TB.Errorf(format, args...)
}

// Fail marks the iteration and the benchmark failed.
func (o *Op) Fail() {
	o.fail()
	o.TB.Fail()
}

// FailNow ends the iteration (its cleanups run) and stops the benchmark.
func (o *Op) FailNow() {
	o.fail()
	o.Done()
	o.TB.FailNow()
}

// Fatal reports a failure, ends the iteration and stops the benchmark.
func (o *Op) Fatal(args ...any) {
	o.fail()
	o.TB.Error(args...)
	o.FailNow()
}

// Fatalf reports a failure, ends the iteration and stops the benchmark.
func (o *Op) Fatalf(format string, args ...any) {
	o.fail()
	o.TB.Errorf(format, args...)
	o.FailNow()
}

// Failed reports whether this iteration failed.
func (o *Op) Failed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.failed
}
