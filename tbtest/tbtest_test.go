package tbtest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/ctrltest/ctrltest/tbtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRun(t *testing.T) {
	tests := []struct {
		name                     string
		body                     func(t testing.TB)
		failed, stopped, skipped bool
		messages                 []string
		ran                      []string // what ran, in order
	}{{
		name: "passes",
		body: func(t testing.TB) { t.Log("fine") },
	}, {
		name:     "Error and Errorf go on",
		body:     func(t testing.TB) { t.Error("a", 1); t.Errorf("b %d", 2) },
		failed:   true,
		messages: []string{"a 1", "b 2"},
	}, {
		name:     "Fatalf stops the body",
		body:     func(t testing.TB) { t.Fatalf("stop %s", "here"); t.Error("not reached") },
		failed:   true,
		stopped:  true,
		messages: []string{"stop here"},
	}, {
		name:    "FailNow without a message",
		body:    func(t testing.TB) { t.FailNow() },
		failed:  true,
		stopped: true,
	}, {
		name:    "Skip",
		body:    func(t testing.TB) { t.Skip("later"); t.Error("not reached") },
		skipped: true,
	}, {
		name:     "panic is a failure",
		body:     func(t testing.TB) { panic(errors.New("boom")) },
		failed:   true,
		messages: []string{"panic: boom"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tbtest.Run(t, tt.body)
			if rec.Failed() != tt.failed || rec.Stopped() != tt.stopped || rec.Skipped() != tt.skipped {
				t.Errorf("Failed, Stopped, Skipped = %v, %v, %v; want %v, %v, %v", rec.Failed(), rec.Stopped(), rec.Skipped(), tt.failed, tt.stopped, tt.skipped)
			}
			got := rec.Messages()
			if len(got) != len(tt.messages) {
				t.Fatalf("Messages() = %q, want %q", got, tt.messages)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.messages[i]) {
					t.Errorf("Messages()[%d] = %q, want it to start with %q", i, got[i], tt.messages[i])
				}
			}
		})
	}
}

func TestRunCleanups(t *testing.T) {
	var ran []string
	ctxDoneBeforeCleanups := false
	rec := tbtest.Run(t, func(t testing.TB) {
		t.Cleanup(func() { ran = append(ran, "first registered") })
		t.Cleanup(func() {
			ran = append(ran, "fails")
			t.Fatal("in a cleanup")
		})
		t.Cleanup(func() {
			ctxDoneBeforeCleanups = t.Context().Err() != nil
			ran = append(ran, "last registered")
		})
		t.Fatal("body")
	})
	if d := cmp.Diff([]string{"last registered", "fails", "first registered"}, ran); d != "" {
		t.Errorf("cleanups (-want +got):\n%s", d)
	}
	if !ctxDoneBeforeCleanups {
		t.Error("the context was not cancelled before the cleanups")
	}
	if d := cmp.Diff([]string{"body", "in a cleanup"}, rec.Messages()); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	if got := rec.String(); got != "body\nin a cleanup" {
		t.Errorf("String() = %q", got)
	}
}

func TestPerOp(t *testing.T) {
	var ran []string
	op := tbtest.PerOp(t)
	op.Cleanup(func() { ran = append(ran, "first") })
	op.Cleanup(func() { ran = append(ran, "second") })
	op.Log("kept in memory")
	ctx := op.Context()
	if ctx.Err() != nil {
		t.Fatal("the context is done before Done")
	}
	op.Done()
	op.Done() // a second Done does nothing
	if ctx.Err() == nil {
		t.Error("Done did not cancel the context")
	}
	if d := cmp.Diff([]string{"second", "first"}, ran); d != "" {
		t.Errorf("cleanups (-want +got):\n%s", d)
	}
	if op.Failed() {
		t.Error("the op failed")
	}
}

// TestPerOpFailure runs an op that fails on a recorder: the failure reaches
// the parent and the op's cleanups still run.
func TestPerOpFailure(t *testing.T) {
	cleaned := false
	rec := tbtest.Run(t, func(t testing.TB) {
		op := tbtest.PerOp(t)
		op.Cleanup(func() { cleaned = true })
		op.Fatalf("op %d failed", 3)
	})
	if !cleaned {
		t.Error("Fatalf did not run the op's cleanups")
	}
	if !rec.Stopped() || rec.String() != "op 3 failed" {
		t.Errorf("parent: stopped=%v, messages %q", rec.Stopped(), rec.String())
	}
}

func BenchmarkPerOp(b *testing.B) {
	for b.Loop() {
		op := tbtest.PerOp(b)
		op.Cleanup(func() {})
		op.Done()
	}
}
