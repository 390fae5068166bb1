package records

import (
	"fmt"
	"time"

	"github.com/ctrltest/ctrltest/internal/queues"
)

// QueueOp is one thing the controller did to one of its work queues.
type QueueOp struct {
	// Queue names the queue (fixture.QueueNamed); "" for fixture.Queue's.
	Queue string
	// Op is OpAdd, OpAddAfter, OpAddRateLimited or OpForget.
	Op string
	// Key is the item, formatted with fmt.
	Key string
	// After is an add-after's delay, or an add-rate-limited's backoff.
	After time.Duration
}

// The operations a QueueOp records.
const (
	OpAdd            = queues.OpAdd
	OpAddAfter       = queues.OpAddAfter
	OpAddRateLimited = queues.OpAddRateLimited
	OpForget         = queues.OpForget
)

// String formats the record as one line: "add default/web", or
// "contents: add snap-1" on a named queue.
func (q QueueOp) String() string {
	s := q.Op + " " + q.Key
	if q.Op == OpAddAfter || q.Op == OpAddRateLimited {
		s = fmt.Sprintf("%s %s %v", q.Op, q.Key, q.After)
	}
	if q.Queue != "" {
		s = q.Queue + ": " + s
	}
	return s
}

// On returns the expected record on the queue named queue
// (fixture.QueueNamed): records.Added("snap-1").On("contents").
func (q QueueOp) On(queue string) QueueOp {
	q.Queue = queue
	return q
}

// Added is the expected Add of key.
func Added(key string) QueueOp { return QueueOp{Op: OpAdd, Key: key} }

// AddedAfter is the expected AddAfter of key with delay d.
func AddedAfter(key string, d time.Duration) QueueOp {
	return QueueOp{Op: OpAddAfter, Key: key, After: d}
}

// RateLimited is the expected AddRateLimited of key, which the rate limiter
// delayed by backoff (client-go's default: 5ms, 10ms, 20ms, ...).
func RateLimited(key string, backoff time.Duration) QueueOp {
	return QueueOp{Op: OpAddRateLimited, Key: key, After: backoff}
}

// Forgotten is the expected Forget of key.
func Forgotten(key string) QueueOp { return QueueOp{Op: OpForget, Key: key} }
