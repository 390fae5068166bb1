// Package queues records what a controller does to its work queues: a
// spy per queue (Spy, a rate-limiting queue built as client-go builds its
// own) and the ordered log of every spy of one fixture (Log), each record
// marked with whether an informer's event handler made it.
package queues

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// The operations a Record records (records.OpAdd and the others).
const (
	OpAdd            = "add"
	OpAddAfter       = "add-after"
	OpAddRateLimited = "add-rate-limited"
	OpForget         = "forget"
)

// Record is one thing the controller did to one of its queues.
type Record struct {
	// Queue names the queue ("" for the unnamed one).
	Queue, Op, Key string
	// After is the delay of add-after, or the backoff of add-rate-limited.
	After time.Duration
	// ByHandler is set when an informer's event handler made the record,
	// not a sync.
	ByHandler bool
}

// Log is the ordered record of every spy of one fixture.
type Log struct {
	mu      sync.Mutex
	records []Record
	// awaited counts the records fixture.AwaitEnqueued has consumed.
	awaited int
	// signal is signalled after each record.
	signal chan struct{}
	// count is len(records), for readers that do not lock (Count).
	count atomic.Int64
}

// NewLog makes an empty log.
func NewLog() *Log { return &Log{signal: make(chan struct{}, 1)} }

func (l *Log) add(r Record) {
	l.mu.Lock()
	l.records = append(l.records, r)
	l.count.Store(int64(len(l.records)))
	l.mu.Unlock()
	select {
	case l.signal <- struct{}{}:
	default:
	}
}

// Len is the number of records so far, a mark for Since.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.records)
}

// Count is the number of records so far (Len), kept where a reader that
// does not know the log can read it: the world marks the events it tells
// with it.
func (l *Log) Count() *atomic.Int64 { return &l.count }

// Since returns the records from index from on.
func (l *Log) Since(from int) []Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.records[from:])
}

// Signal is signalled after each record.
func (l *Log) Signal() <-chan struct{} { return l.signal }

// TakeAwaited returns the records since the last call (or the start) when
// there are at least n of them, or when force is set, and marks them
// consumed; ok is false otherwise.
func (l *Log) TakeAwaited(n int, force bool) (records []Record, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.records)-l.awaited < n && !force {
		return nil, false
	}
	out := slices.Clone(l.records[l.awaited:])
	l.awaited = len(l.records)
	return out, true
}

// SortFrom orders the records from index from on by key, then operation
// (those an informer's start made, on handler goroutines of their own, in
// no defined order).
func (l *Log) SortFrom(from int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	slices.SortStableFunc(l.records[from:], func(a, b Record) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Op, b.Op))
	})
}

// Config is what a spy needs of its fixture.
type Config struct {
	// Name is the queue's name ("" for the unnamed one).
	Name   string
	Clock  clock.WithTicker // nil is the real clock
	Logger klog.Logger
	// Key formats an item as the fixture's records show it.
	Key func(item any) string
	// ByHandler reports whether the caller runs inside an informer's event
	// handler.
	ByHandler func() bool
	// Own runs fn so that the goroutines it starts are the fixture's.
	Own func(fn func())
}

// Spy is a rate-limiting queue, built as client-go builds its own (a
// delaying queue over a queue, and a rate limiter), that records what is
// done to it in its log. The delaying queue, whose loop is a goroutine, is
// made by the first delayed add: most rows never make one.
type Spy[T comparable] struct {
	cfg     Config
	log     *Log
	base    workqueue.TypedInterface[T]
	limiter workqueue.TypedRateLimiter[T]

	mu       sync.Mutex
	delaying workqueue.TypedDelayingInterface[T] // over base; nil until needed
	shutDown bool                                // no delaying queue is made after it
}

var _ workqueue.TypedRateLimitingInterface[string] = (*Spy[string])(nil)

// NewSpy makes a spy recording in log.
func NewSpy[T comparable](log *Log, cfg Config) *Spy[T] {
	return &Spy[T]{
		cfg: cfg,
		log: log,
		// With no name, the queue has no metrics and starts no goroutine.
		base:    workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[T]{Clock: cfg.Clock}),
		limiter: workqueue.DefaultTypedControllerRateLimiter[T](),
	}
}

func (q *Spy[T]) note(op string, item T, after time.Duration) {
	q.log.add(Record{Queue: q.cfg.Name, Op: op, Key: q.cfg.Key(item), After: after, ByHandler: q.cfg.ByHandler()})
}

// delayed returns the delaying queue, made now if it was not; nil once the
// queue is shut down (an add then does nothing, as client-go's does).
func (q *Spy[T]) delayed() workqueue.TypedDelayingInterface[T] {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.delaying == nil && !q.shutDown {
		q.cfg.Own(func() { // the queue's loop is the fixture's, stopped by its cleanup
			q.delaying = workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[T]{Logger: &q.cfg.Logger, Clock: q.cfg.Clock, Queue: q.base})
		})
	}
	return q.delaying
}

// Delaying reports whether the delaying queue was made.
func (q *Spy[T]) Delaying() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.delaying != nil
}

// addAfter is the delaying queue's AddAfter: an item due now goes to the
// queue at once.
func (q *Spy[T]) addAfter(item T, d time.Duration) {
	if d <= 0 {
		q.base.Add(item)
		return
	}
	if dq := q.delayed(); dq != nil {
		dq.AddAfter(item, d)
	}
}

// shutting returns the queue to shut down, the delaying one when made, and
// keeps a delaying queue from being made later: its loop would outlive
// the fixture.
func (q *Spy[T]) shutting() workqueue.TypedInterface[T] {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shutDown = true
	if q.delaying != nil {
		return q.delaying
	}
	return q.base
}

// The methods of workqueue.TypedRateLimitingInterface: Add, AddAfter,
// AddRateLimited and Forget are recorded, then done as client-go's queue
// does them; the others are the queue's own.

// Add records an add and adds item.
func (q *Spy[T]) Add(item T) {
	q.note(OpAdd, item, 0)
	q.base.Add(item)
}

// AddAfter records a delayed add and adds item after d.
func (q *Spy[T]) AddAfter(item T, d time.Duration) {
	q.note(OpAddAfter, item, d)
	q.addAfter(item, d)
}

// AddRateLimited records a rate-limited add, with the backoff the rate
// limiter chose, and adds item after it.
func (q *Spy[T]) AddRateLimited(item T) {
	d := q.limiter.When(item)
	q.note(OpAddRateLimited, item, d)
	q.addAfter(item, d)
}

func (q *Spy[T]) Len() int                     { return q.base.Len() }
func (q *Spy[T]) Get() (item T, shutdown bool) { return q.base.Get() }
func (q *Spy[T]) Done(item T)                  { q.base.Done(item) }
func (q *Spy[T]) ShutDown()                    { q.shutting().ShutDown() }
func (q *Spy[T]) ShutDownWithDrain()           { q.shutting().ShutDownWithDrain() }
func (q *Spy[T]) ShuttingDown() bool           { return q.base.ShuttingDown() }

// Forget records a forget and resets item's backoff.
func (q *Spy[T]) Forget(item T) {
	q.note(OpForget, item, 0)
	q.limiter.Forget(item)
}

func (q *Spy[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }
