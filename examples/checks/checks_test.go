package checks

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrltest/ctrltest/tbtest"
)

// mustCatch runs body as a test body, on a testing.TB that records failures
// instead of reporting them (tbtest.Run), and fails t unless body failed,
// every failure naming the check that caught the bug with wording. This is
// how these examples show a check failing a broken controller without
// failing themselves; a test of your own controller needs nothing like it.
func mustCatch(t *testing.T, wording string, body func(t testing.TB)) {
	t.Helper()
	rec := tbtest.Run(t, body)
	if !rec.Failed() {
		t.Fatalf("the check did not catch the bug: no failure, want one containing %q", wording)
	}
	for _, msg := range rec.Messages() {
		if !strings.Contains(msg, wording) {
			t.Errorf("want every failure to contain %q, got:\n%s", wording, msg)
		}
	}
	t.Logf("caught, as intended:\n%s", rec)
}

// web names the Deployment default/web, for Fixture.Object.
var web = &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}}
