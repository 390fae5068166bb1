package checks

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// mustCatch runs body as a test body, on a testing.TB that records failures
// instead of reporting them, and fails t unless body failed, every failure
// naming the check that caught the bug with wording. This is how these
// examples show a check failing a broken controller without failing
// themselves; a test of your own controller needs nothing like it.
func mustCatch(t *testing.T, wording string, body func(t testing.TB)) {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() { // Fatal ends this goroutine, as it ends a test's.
		defer close(done)
		body(r)
	}()
	<-done
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.failures) == 0 {
		t.Fatalf("the check did not catch the bug: no failure, want one containing %q", wording)
	}
	for _, msg := range r.failures {
		if !strings.Contains(msg, wording) {
			t.Errorf("want every failure to contain %q, got:\n%s", wording, msg)
		}
	}
	t.Logf("caught, as intended:\n%s", strings.Join(r.failures, "\n"))
}

// recorder is a testing.TB whose failures are recorded rather than
// reported.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	failures []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *recorder) Error(args ...any) { r.Errorf("%s", fmt.Sprint(args...)) }

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// web names the Deployment default/web, for Fixture.Object.
var web = &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}
