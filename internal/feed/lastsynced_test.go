package feed

import (
	"testing"

	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/internal/kubeminor"
)

// checkLastSynced checks the store's LastStoreSyncResourceVersion, which
// client-go 1.36 added; on 1.35, whose stores keep none (a controller
// there cannot ask it), there is nothing to check.
func checkLastSynced(t *testing.T, inf cache.SharedIndexInformer, want, what string) {
	t.Helper()
	s, ok := inf.GetStore().(interface{ LastStoreSyncResourceVersion() string })
	if !ok {
		if _, minor := kubeminor.Running(); minor >= 36 {
			t.Fatalf("the store %T has no LastStoreSyncResourceVersion", inf.GetStore())
		}
		return
	}
	if got := s.LastStoreSyncResourceVersion(); got != want {
		t.Errorf("LastStoreSyncResourceVersion = %q, want %s", got, what)
	}
}
