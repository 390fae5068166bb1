package goroutines

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseStacks(t *testing.T) {
	want := []goroutine{
		{id: 7, state: "running", funcs: []string{"main.main"}},
		{
			id: 34, state: "select", funcs: []string{"k8s.io/client-go/util/workqueue.(*delayingType[...]).waitingLoop"},
			parent: 7, creator: "k8s.io/client-go/util/workqueue.newDelayingQueue[...]",
			location: "/root/go/pkg/mod/k8s.io/client-go@v0.37.2/util/workqueue/delaying_queue.go:157",
		},
		{id: 2, state: "force gc (idle)", funcs: []string{"runtime.gopark"}, creator: "runtime.init.7", location: "/usr/local/go/src/runtime/proc.go:336"},
	}
	got := parseStacks([]byte(sampleDump))
	for _, g := range got {
		if !strings.HasPrefix(g.text, fmt.Sprintf("goroutine %d [", g.id)) {
			t.Errorf("goroutine %d: its text is not its block of the dump: %q", g.id, g.text)
		}
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(goroutine{}), cmpopts.IgnoreFields(goroutine{}, "text")); d != "" {
		t.Errorf("parseStacks (-want +got):\n%s", d)
	}
	for _, tt := range []struct {
		g    goroutine
		idle bool
	}{
		{goroutine{state: "chan receive", funcs: []string{"runtime.gopark", "k8s.io/apimachinery/pkg/watch.(*Broadcaster).loop"}}, true},
		{goroutine{state: "select", funcs: []string{"k8s.io/client-go/tools/record.(*eventBroadcasterImpl).StartEventWatcher.func1"}}, true},
		{goroutine{state: "runnable", funcs: []string{"k8s.io/apimachinery/pkg/watch.(*Broadcaster).loop"}}, false},
		{goroutine{state: "sync.Mutex.Lock", funcs: []string{"sync.(*Mutex).Lock", "k8s.io/client-go/tools/record.recordToSink"}}, false},
		// Parked in the sink's HTTP request: an event in flight.
		{goroutine{state: "select", funcs: []string{"net/http.(*persistConn).roundTrip", "k8s.io/client-go/tools/record.recordToSink"}}, false},
	} {
		if got := idle(tt.g); got != tt.idle {
			t.Errorf("idle(%s %v) = %v, want %v", tt.g.state, tt.g.funcs, got, tt.idle)
		}
	}
	if id := currentGoroutine(); id == 0 || !goroutineIDs()[id] {
		t.Errorf("currentGoroutine() = %d, not among goroutineIDs()", id)
	}
	// goroutineIDs reads the heads scanStacks finds, snapshot the blocks
	// parseStacks parses: the same goroutines of one dump.
	var heads []uint64
	for _, h := range scanStacks([]byte(sampleDump)) {
		heads = append(heads, h.id)
	}
	var parsed []uint64
	for _, g := range parseStacks([]byte(sampleDump)) {
		parsed = append(parsed, g.id)
	}
	if d := cmp.Diff(parsed, heads); d != "" {
		t.Errorf("scanStacks and parseStacks disagree on the goroutines of a dump (-parsed +scanned):\n%s", d)
	}
	release := make(chan struct{})
	defer close(release)
	started := make(chan uint64)
	go func() { started <- currentGoroutine(); <-release }()
	child := <-started
	if _, ok := find(snapshot(), child); !ok {
		t.Errorf("snapshot() lacks goroutine %d, which is running", child)
	}
	if !goroutineIDs()[child] {
		t.Errorf("goroutineIDs() lacks goroutine %d, which is running", child)
	}
}

// TestSnapshotSeesParent checks the runtime's stack sampleDump still names each
// goroutine's parent, which the leak check and the event wait rely on.
func TestSnapshotSeesParent(t *testing.T) {
	self := currentGoroutine()
	ready, release := make(chan uint64), make(chan struct{})
	go func() {
		ready <- currentGoroutine()
		<-release
	}()
	child := <-ready
	defer close(release)
	// The child is runnable between its send and its receive: look again
	// until it has parked (a busy machine may not run it for a while).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		g, ok := find(snapshot(), child)
		if !ok {
			t.Fatalf("goroutine %d not in the snapshot", child)
		}
		if g.parent != self {
			t.Fatalf("child goroutine: parent %d, want %d", g.parent, self)
		}
		if g.state == "chan receive" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("child goroutine: state %q, want \"chan receive\"", g.state)
		}
	}
}

// find returns the goroutine of gs whose id is id.
func find(gs []goroutine, id uint64) (goroutine, bool) {
	for _, g := range gs {
		if g.id == id {
			return g, true
		}
	}
	return goroutine{}, false
}

func FuzzParseStacks(f *testing.F) {
	f.Add([]byte(sampleDump))
	f.Add([]byte("goroutine x [\n\ncreated by  in goroutine \n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, g := range parseStacks(b) {
			if g.id == 0 {
				t.Errorf("goroutine with id 0 from %q", b)
			}
			_ = g.top()
		}
		checkHeads(t, b)
	})
}

// TestLeakBaseline checks when a fixture's leak check may skip its stack
// dump: a fresh subtest's first fixture, or no goroutine created since an
// earlier dump.
func TestLeakBaseline(t *testing.T) {
	self := currentGoroutine()
	kept := map[uint64]bool{self: true}
	created := Created()
	keepBaseline(created, kept)
	if got, dumped := baselineFor(created, self); dumped || len(got) != 1 || !got[self] {
		t.Errorf("baselineFor with nothing created since = %v (dumped: %v), want the kept baseline", got, dumped)
	}
	// A new test's goroutine, the only one created since, is the root.
	reused := make(chan bool)
	go func() {
		_, dumped := baselineFor(Created(), currentGoroutine())
		reused <- !dumped
	}()
	if !<-reused {
		t.Errorf("baselineFor took a dump for a goroutine made after the kept baseline and nothing else")
	}
	keepBaseline(Created(), kept)
	go func() {
		ready := make(chan struct{})
		go func() { close(ready) }() // a second goroutine since the kept baseline
		<-ready
		_, dumped := baselineFor(Created(), currentGoroutine())
		reused <- !dumped
	}()
	if <-reused {
		t.Errorf("baselineFor reused the kept baseline although two goroutines were made since")
	}
	keepBaseline(created, kept)
	release := make(chan struct{})
	defer close(release)
	started := make(chan uint64)
	go func() { started <- currentGoroutine(); <-release }()
	child := <-started
	if got, _ := baselineFor(Created(), self); !got[child] {
		t.Errorf("baselineFor after a goroutine was created lacks it (%d): the kept baseline was reused", child)
	}

	t.Run("fresh", func(t *testing.T) {
		MarkFresh(t)
		w := NewWatch(wrapped{t}, true) // as a table row wraps its subtest
		if len(w.before) != 0 || w.dumped {
			t.Errorf("a fresh test's fixture took a baseline of %d goroutines", len(w.before))
		}
		if w := NewWatch(t, true); len(w.before) == 0 || !w.dumped {
			t.Errorf("a second fixture of the test took no baseline: the fresh mark was not used up")
		}
	})
}

// TestCurrentAndParent: a goroutine reads its own id and its creator's.
func TestCurrentAndParent(t *testing.T) {
	self := currentGoroutine()
	got := make(chan [2]uint64)
	go func() {
		id, parent := CurrentAndParent()
		got <- [2]uint64{id, parent}
	}()
	ids := <-got
	if ids[0] == 0 || ids[0] == self || ids[1] != self {
		t.Errorf("CurrentAndParent() = %d, %d; want a new id and the creator %d", ids[0], ids[1], self)
	}
}

// checkHeads checks that scanStacks reads of each goroutine of the dump b
// what parseStacks reads: its id, its parent, and whether package testing
// or this package created it.
func checkHeads(t *testing.T, b []byte) {
	t.Helper()
	heads, gs := scanStacks(b), parseStacks(b)
	if len(heads) != len(gs) {
		t.Fatalf("scanStacks found %d goroutines, parseStacks %d", len(heads), len(gs))
	}
	for i, h := range heads {
		g := gs[i]
		foreign := strings.HasPrefix(g.creator, "testing.") || ownFunction([]byte(g.creator))
		if h.id != g.id || h.parent != g.parent || h.foreign != foreign {
			t.Errorf("goroutine %d: scanStacks read id %d, parent %d, foreign %v; parseStacks id %d, parent %d, creator %q",
				i, h.id, h.parent, h.foreign, g.id, g.parent, g.creator)
		}
	}
}

// TestScanStacks: the heads the leak check and the event wait read of every
// goroutine agree with a full parse, on a sample and on this process.
func TestScanStacks(t *testing.T) {
	checkHeads(t, []byte(sampleDump))
	checkHeads(t, AllStacks())
	done := make(chan struct{})
	go func() { <-done }() // a goroutine of this package's: foreign
	defer close(done)
	for _, h := range scanStacks(AllStacks()) {
		if h.parent == currentGoroutine() && !h.foreign {
			t.Errorf("goroutine %d, created by this package's test, is not foreign", h.id)
		}
	}
}

// TestSoleRunner: the scheduler's counts say the process is quiet when
// nothing else runs, and never while a goroutine keeps running.
func TestSoleRunner(t *testing.T) {
	deadline := time.Now().Add(10 * time.Second)
	for attempt := 0; !soleRunner(); attempt++ {
		if time.Now().After(deadline) {
			t.Fatal("the process was never quiet in 10s")
		}
		backoff(attempt)
	}
	stop := spin()
	defer stop()
	for range 1000 {
		if soleRunner() {
			t.Fatal("soleRunner() with another goroutine running")
		}
	}
}

// TestQuietBudget: the event wait and the leak check wait for a quiet
// process at least quietFloor, longer in a process of many goroutines
// (where a stack dump costs more); in a process of few goroutines, after
// waits that found the process busy, the next few look once, then dump (a wait can
// cost a scheduling quantum per sleep while goroutines that never block
// hold every processor, as TestInformerModeIsDeterministic's do).
func TestQuietBudget(t *testing.T) {
	w := &Watch{}
	defer quietSkips.Store(quietSkips.Load())
	if n := runtime.NumGoroutine(); n < quietMinGoroutines {
		quietSkips.Store(0)
		if got := w.quietBudget(); got != quietFloor {
			t.Errorf("with %d goroutines, quietBudget() = %v, want %v", n, got, quietFloor)
		}
		quietSkips.Store(quietSkipsAfterMiss)
		for i := range quietSkipsAfterMiss {
			if got := w.quietBudget(); got != 0 {
				t.Errorf("with %d goroutines, wait %d after a missed one: quietBudget() = %v, want 0", n, i+1, got)
			}
		}
		if got := w.quietBudget(); got != quietFloor {
			t.Errorf("with %d goroutines, %d waits after a missed one: quietBudget() = %v, want %v", n, quietSkipsAfterMiss+1, got, quietFloor)
		}
	}
	stop := parked(2 * quietMinGoroutines)
	got := w.quietBudget()
	stop()
	if least := 2 * quietMinGoroutines * quietPerGoroutine; got < least {
		t.Errorf("with over %d goroutines, quietBudget() = %v, want at least %v", 2*quietMinGoroutines, got, least)
	}
	w.QuietWait = time.Second
	if got := w.quietBudget(); got != time.Second {
		t.Errorf("quietBudget() with quietWait set = %v, want 1s", got)
	}
}

const sampleDump = `goroutine 7 [running]:
main.main()
	/tmp/main.go:18 +0xdc

goroutine 34 [select, 2 minutes]:
k8s.io/client-go/util/workqueue.(*delayingType[...]).waitingLoop(0xc000214000, {0x1d5d2a0, 0xc00011c000})
	/root/go/pkg/mod/k8s.io/client-go@v0.37.2/util/workqueue/delaying_queue.go:276 +0x2b7
created by k8s.io/client-go/util/workqueue.newDelayingQueue[...] in goroutine 7
	/root/go/pkg/mod/k8s.io/client-go@v0.37.2/util/workqueue/delaying_queue.go:157 +0x2b6

goroutine 2 [force gc (idle)]:
runtime.gopark(0x0?, 0x0?, 0x0?, 0x0?, 0x0?)
	/usr/local/go/src/runtime/proc.go:435 +0xce
...additional frames elided...
created by runtime.init.7
	/usr/local/go/src/runtime/proc.go:336 +0x1a
`

// parked starts n goroutines that wait until the returned func ends them:
// goroutines a test binary holds that no fixture started.
func parked(n int) (stop func()) {
	var ended sync.WaitGroup
	release := make(chan struct{})
	ended.Add(n)
	for range n {
		go func() {
			defer ended.Done()
			<-release
		}()
	}
	return func() {
		close(release)
		ended.Wait()
	}
}

// spin keeps a goroutine running until the returned func stops it: the
// process is never quiet meanwhile (see soleRunner).
func spin() (stop func()) {
	var stopped sync.WaitGroup
	done := make(chan struct{})
	stopped.Add(1)
	go func() {
		defer stopped.Done()
		for {
			select {
			case <-done:
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	return func() {
		close(done)
		stopped.Wait()
	}
}

// wrapped is a testing.TB that wraps a test, as fixture's table rows do.
type wrapped struct{ testing.TB }

func (w wrapped) Unwrap() testing.TB { return w.TB }

// TestQuietSkipsAfterMissesInARow: only quietMissesBeforeSkips waits in a
// row that end with the process busy make the next waits look once; a
// wait that finds the process quiet starts the count again.
func TestQuietSkipsAfterMissesInARow(t *testing.T) {
	defer quietSkips.Store(quietSkips.Load())
	defer quietMisses.Store(quietMisses.Load())
	quietSkips.Store(0)
	quietMisses.Store(0)
	w := &Watch{QuietWait: time.Millisecond}
	stop := spin()
	for i := 1; i < quietMissesBeforeSkips; i++ {
		if w.awaitQuiet() {
			stop()
			t.Fatal("awaitQuiet() = true while a goroutine spins")
		}
		if got := quietSkips.Load(); got != 0 {
			t.Errorf("after %d busy wait(s) in a row, %d waits look once, want 0", i, got)
		}
	}
	w.awaitQuiet()
	stop()
	if got := quietSkips.Load(); got != quietSkipsAfterMiss {
		t.Errorf("after %d busy waits in a row, %d waits look once, want %d", quietMissesBeforeSkips, got, quietSkipsAfterMiss)
	}
	quietSkips.Store(0)
	quietMisses.Store(quietMissesBeforeSkips - 1)
	w.QuietWait = 10 * time.Second
	if !w.awaitQuiet() {
		t.Fatal("awaitQuiet() = false with nothing running")
	}
	if got := quietMisses.Load(); got != 0 {
		t.Errorf("after a quiet wait, %d misses in a row, want 0", got)
	}
}

// A dump's buffer starts at the size the last dump needed: the pool loses
// its buffers at garbage collections, and each size a new small buffer
// outgrew would cost a dump of every goroutine.
func TestDumpStartsAtTheSizeItNeeded(t *testing.T) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 2000 {
		wg.Go(func() { <-done })
	}
	defer func() { close(done); wg.Wait() }()
	// Parked, each goroutine's stack is as long as it gets: a dump taken
	// while some were still starting would need a smaller buffer than the
	// next.
	for deadline := time.Now().Add(10 * time.Second); !soleRunner(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Skip("the process never turned quiet: other tests run in parallel")
		}
	}
	calls := 0
	stack := stackAll
	stackAll = func(buf []byte) int { calls++; return stack(buf) }
	defer func() { stackAll = stack }()

	dump(func([]byte) {})                     // learns the size
	stackBufs = sync.Pool{New: stackBufs.New} // as a garbage collection leaves it
	calls = 0
	dump(func(b []byte) {
		if !strings.Contains(string(b), "TestDumpStartsAtTheSizeItNeeded") {
			t.Error("the dump lacks the test's own goroutine")
		}
	})
	if calls != 1 {
		t.Errorf("a dump with a fresh buffer took %d stack dumps of 2,000 goroutines; want 1", calls)
	}
}

// A request's end (ServedSignal) cuts a pause short: the broadcaster that
// wrote the request's event is microseconds from parking, where the
// pause's sleep would last a millisecond or more.
func TestServedEndsThePause(t *testing.T) {
	w := &Watch{served: make(chan struct{}, 1)}
	served := func() { // as the world signals it
		select {
		case w.ServedSignal() <- struct{}{}:
		default:
		}
	}
	go func() {
		time.Sleep(time.Millisecond)
		served()
	}()
	w.pause(time.Minute) // broken, the test would wait the minute out
	if got := w.servedWakes.Load(); got != 1 {
		t.Errorf("the pause ended %d time(s) at a request's end, want 1", got)
	}
}

// awaitExits yields until the goroutines a test's cleanups stopped have
// exited, and gives up on goroutines that stay.
func TestAwaitExits(t *testing.T) {
	// parked starts n goroutines that wait for stop, and returns once all
	// of them are waiting: as a fixture's are when its cleanups stop them.
	parked := func(n int, stop chan struct{}) (before int, wg *sync.WaitGroup) {
		var started sync.WaitGroup
		wg = new(sync.WaitGroup)
		started.Add(n)
		for range n {
			wg.Go(func() {
				started.Done()
				<-stop
			})
		}
		started.Wait()
		// Counted now, not before: an earlier test's goroutine that is
		// still exiting only makes the count fall further.
		return runtime.NumGoroutine() - n, wg
	}

	// awaitExits gives up when no goroutine exits for exitStall (the
	// leak check then takes a stack dump): a busy machine that deschedules
	// the process that long makes one attempt fail, not three.
	for attempt := 1; ; attempt++ {
		stop := make(chan struct{})
		before, wg := parked(20, stop)
		w := &Watch{live0: before}
		close(stop)
		ok := awaitExits([]*Watch{w})
		if n := runtime.NumGoroutine(); ok && n > before {
			t.Errorf("awaitExits = true with %d goroutines, %d before the 20", n, before)
		}
		wg.Wait()
		if ok {
			break
		}
		if attempt == 3 {
			t.Errorf("awaitExits = false in 3 attempts after 20 goroutines were stopped (%d goroutines, %d before them)", runtime.NumGoroutine(), before)
			break
		}
	}

	stay := make(chan struct{})
	before, wg := parked(5, stay)
	defer wg.Wait()
	defer close(stay)
	if awaitExits([]*Watch{{live0: before}}) {
		t.Error("awaitExits = true while 5 goroutines the test started stay parked")
	}
}

// gcMarking reads the runtime's counters as soleRunner relies on: even
// between collections, odd while one marks.
func TestMarkingFollowsTheCollector(t *testing.T) {
	runtime.GC() // returns once the mark is over
	if marking, ok := gcMarking(); !ok {
		t.Fatal("this runtime lacks a metric gcMarking reads")
	} else if marking {
		t.Fatal("gcMarking() = true after runtime.GC returned")
	}
	seen := false
	for range 100 {
		done := make(chan struct{})
		go func() {
			defer close(done)
			runtime.GC()
		}()
	poll:
		for {
			select {
			case <-done:
				break poll
			default:
				if marking, _ := gcMarking(); marking {
					seen = true
				}
			}
		}
		if seen {
			break
		}
	}
	if !seen {
		t.Error("gcMarking() was never true during 100 collections")
	}
}
