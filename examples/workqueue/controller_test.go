package workqueue

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

// TestSyncPod runs the scenarios of Table (table.go) on client-go's fakes:
// each row seeds its objects, syncs its key once and checks every write,
// event, queue record and the error; then syncs again to check that the
// sync handler is idempotent.
func TestSyncPod(t *testing.T) {
	Table().Run(t)
}

// process handles one key the way a worker does: syncPod, then handleErr.
func process(c *Controller) fixture.SyncFunc[string] {
	return func(ctx context.Context, key string) error {
		err := c.syncPod(ctx, key)
		c.handleErr(ctx, err, key)
		return err
	}
}

// TestHandleErr reads the retry policy off the fixture's work-queue spy.
func TestHandleErr(t *testing.T) {
	t.Run("retries with backoff, then drops the key", func(t *testing.T) {
		f := fixture.New(t, fixture.WithObjects(newPod(nil)), fixture.WithReactor("update", "pods", conflict))
		sync := process(newTestController(f))

		var got []records.QueueOp
		for range maxRetries + 1 {
			res := fixture.Sync(f, sync, "default/web")
			res.AssertErr(isConflict)
			got = append(got, res.Enqueued...)
		}

		// The default controller rate limiter backs off exponentially
		// from 5ms; after five requeues the key is forgotten.
		want := []records.QueueOp{
			{Op: records.OpAddRateLimited, Key: "default/web", After: 5 * time.Millisecond},
			{Op: records.OpAddRateLimited, Key: "default/web", After: 10 * time.Millisecond},
			{Op: records.OpAddRateLimited, Key: "default/web", After: 20 * time.Millisecond},
			{Op: records.OpAddRateLimited, Key: "default/web", After: 40 * time.Millisecond},
			{Op: records.OpAddRateLimited, Key: "default/web", After: 80 * time.Millisecond},
			{Op: records.OpForget, Key: "default/web"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("work queue (-want +got):\n%s", diff)
		}
	})

	t.Run("forgets the key after a successful sync", func(t *testing.T) {
		f := fixture.New(t, fixture.WithObjects(newPod(nil)))
		res := fixture.Sync(f, process(newTestController(f)), "default/web")
		res.AssertErr(nil)
		res.AssertEnqueued(records.QueueOp{Op: records.OpForget, Key: "default/web"})
	})
}
