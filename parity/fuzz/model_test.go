package fuzz

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctrltest/ctrltest/crd"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/tbtest"
)

// TestSequencesOnTheModel runs the fixed seeds' sequences on the model
// alone (no server needed; -v shows each request's outcome): every
// request gets an API answer, none a client-side error, and a sequence is
// the same each time its seed is generated.
func TestSequencesOnTheModel(t *testing.T) {
	f := fixture.New(t, crd.Files(t, crdFiles...))
	for _, seed := range fixedSeeds {
		seq := generate(seed)
		if again := generate(seed); len(again.ops) != len(seq.ops) || kinds(again.res) != kinds(seq.res) {
			t.Errorf("seed %d: two generations differ", seed)
		}
		s := &side{name: "model", dyn: f.Dynamic(), kube: f.Kube(), ns: "fz-model-" + kinds(seq.res)[:3] + string(rune('a'+seed%26)),
			rvs: map[string][]string{}, gen: map[string]string{}, uids: map[string]string{}}
		s.ns = strings.ToLower(s.ns)
		for i, o := range seq.ops {
			st := s.do(t.Context(), seq, o)
			t.Logf("seed %d #%d %s %s: %s", seed, i+1, seq.res[o.Res].kind, o, brief(st))
			if strings.HasPrefix(st.err, "error: ") || st.readErr != "" {
				t.Errorf("seed %d #%d %s: not an API answer: %s %s", seed, i+1, o, st.err, st.readErr)
			}
		}
	}
}

// BenchmarkModelRequests runs the fixed seeds' sequences on the model
// alone and reports its rate as the fuzzer measures it (the time in the
// requests, not in the reads that observe them), and what a request
// allocates (allocs/request, B/request; allocs/op and B/op count the
// whole round: the fixture and the reads too): profile the model side
// with -cpuprofile and pprof -focus=send. A first round, not measured,
// pays what a process pays once (the parse of client-go's schema for
// server-side apply, the registrations), as the fuzzer's first sequence
// does.
func BenchmarkModelRequests(b *testing.B) {
	b.ReportAllocs()
	modelRound(b, "fz-warm", nil)
	var elapsed time.Duration
	requests := 0
	heap := newHeapCount()
	for i := 0; b.Loop(); i++ {
		e, n := modelRound(b, fmt.Sprintf("fz-bench-%d", i), heap)
		elapsed += e
		requests += n
	}
	b.ReportMetric(float64(requests)/elapsed.Seconds(), "requests/s")
	b.ReportMetric(float64(heap.objects)/float64(requests), "allocs/request")
	b.ReportMetric(float64(heap.bytes)/float64(requests), "B/request")
}

// modelRound runs the fixed seeds' sequences on a fresh world, as the
// fuzzer's (in one that grows round after round, every list scans more),
// in namespaces named from prefix, and returns the time in the requests
// and their number; heap, when set, counts what they allocate.
func modelRound(b *testing.B, prefix string, heap *heapCount) (elapsed time.Duration, requests int) {
	op := tbtest.PerOp(b)
	defer op.Done()
	f := fixture.New(op, crd.Files(op, crdFiles...))
	for _, seed := range fixedSeeds {
		seq := generate(seed)
		s := &side{name: "model", dyn: f.Dynamic(), kube: f.Kube(), ns: fmt.Sprintf("%s-%d", prefix, seed%1000),
			rvs: map[string][]string{}, gen: map[string]string{}, uids: map[string]string{}, heap: heap}
		for _, o := range seq.ops {
			s.do(b.Context(), seq, o)
		}
		elapsed += s.elapsed
		requests += s.requests
	}
	return elapsed, requests
}
