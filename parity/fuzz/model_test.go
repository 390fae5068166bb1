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
// with -cpuprofile and pprof -focus=send.
func BenchmarkModelRequests(b *testing.B) {
	b.ReportAllocs()
	var elapsed time.Duration
	requests := 0
	heap := newHeapCount()
	for i := 0; b.Loop(); i++ {
		// A fresh world each round, as the fuzzer's: in one that grows
		// round after round, every list scans more.
		op := tbtest.PerOp(b)
		f := fixture.New(op, crd.Files(op, crdFiles...))
		for _, seed := range fixedSeeds {
			seq := generate(seed)
			s := &side{name: "model", dyn: f.Dynamic(), kube: f.Kube(), ns: fmt.Sprintf("fz-bench-%d-%d", i, seed%1000),
				rvs: map[string][]string{}, gen: map[string]string{}, uids: map[string]string{}, heap: heap}
			for _, o := range seq.ops {
				s.do(b.Context(), seq, o)
			}
			elapsed += s.elapsed
			requests += s.requests
		}
		op.Done()
	}
	b.ReportMetric(float64(requests)/elapsed.Seconds(), "requests/s")
	b.ReportMetric(float64(heap.objects)/float64(requests), "allocs/request")
	b.ReportMetric(float64(heap.bytes)/float64(requests), "B/request")
}
