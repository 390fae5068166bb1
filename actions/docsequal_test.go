package actions

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestDocsEqualAgreesWithCmp: docsEqual, the shortcut diffObjects takes
// before go-cmp, says two documents are equal exactly when cmp.Diff with
// diffObjects' options finds no difference, on hand-picked pairs (empty
// against nil, condition times, mixed number types) and on random ones.
func TestDocsEqualAgreesWithCmp(t *testing.T) {
	type doc = map[string]any
	cases := []struct {
		name string
		a, b any
	}{
		{"nil list and empty list", doc{"l": []any(nil)}, doc{"l": []any{}}},
		{"nil map and empty map", doc{"m": doc(nil)}, doc{"m": doc{}}},
		{"untyped nil and empty map", doc{"m": nil}, doc{"m": doc{}}},
		{"missing key", doc{"a": "x"}, doc{}},
		{"int64 and float64", doc{"n": int64(1)}, doc{"n": float64(1)}},
		{"condition times set", doc{"status": doc{"conditions": []any{doc{"type": "A", "lastTransitionTime": "2020-01-01T00:00:00Z"}}}},
			doc{"status": doc{"conditions": []any{doc{"type": "A", "lastTransitionTime": "2026-01-01T00:00:00Z"}}}}},
		{"condition time set and unset", doc{"status": doc{"conditions": []any{doc{"lastUpdateTime": "2020-01-01T00:00:00Z"}}}},
			doc{"status": doc{"conditions": []any{doc{"lastUpdateTime": nil}}}}},
		{"condition time empty and unset", doc{"status": doc{"conditions": []any{doc{"lastUpdateTime": ""}}}},
			doc{"status": doc{"conditions": []any{doc{"lastUpdateTime": nil}}}}},
		{"time outside conditions", doc{"status": doc{"lastUpdateTime": "2020-01-01T00:00:00Z"}}, doc{"status": doc{"lastUpdateTime": "2026-01-01T00:00:00Z"}}},
		{"lists of different length", []any{"a"}, []any{"a", "b"}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		a := randomDoc(r, 3)
		b := a
		if r.IntN(2) == 0 {
			b = randomDoc(r, 3)
		} else {
			b = mutateDoc(r, a)
		}
		cases = append(cases, struct {
			name string
			a, b any
		}{fmt.Sprintf("random %d", i), a, b})
	}
	var nEq, nNe int // the random pairs must exercise both answers
	for _, keep := range []bool{false, true} {
		c := &config{keepConditionTimes: keep}
		for _, tc := range cases {
			want, ok := cmpEqual(tc.a, tc.b, c)
			if !ok {
				continue // go-cmp cannot compare them either (see cmpEqual)
			}
			if want {
				nEq++
			} else {
				nNe++
			}
			if got := docsEqual(tc.a, tc.b, keep, false); got != want {
				t.Errorf("%s (keep times %v): docsEqual(%#v, %#v) = %v, cmp says %v", tc.name, keep, tc.a, tc.b, got, want)
			}
		}
	}
	if nEq < 1000 || nNe < 1000 {
		t.Errorf("the pairs compared %d equal and %d unequal, want at least 1000 of each", nEq, nNe)
	}
}

// cmpEqual is diffObjects' comparison of unstructured documents; ok is
// false when go-cmp panics, as it does when two of its options apply to one
// value (an empty list or map in a condition's timestamp: no object holds
// one).
func cmpEqual(a, b any, c *config) (equal, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return cmp.Diff(a, b, cmpopts.EquateEmpty(), c.times()) == "", true
}

var docKeys = []string{"a", "b", "conditions", "lastTransitionTime", "lastProbeTime", "type"}

func randomDoc(r *rand.Rand, depth int) any {
	switch n := r.IntN(9); {
	case depth == 0 || n == 0:
		return []any{nil, "", "x", true, false, int64(0), int64(1), float64(1)}[r.IntN(8)]
	case n < 5:
		m := map[string]any{}
		if r.IntN(6) == 0 {
			return map[string]any(nil)
		}
		for range r.IntN(3) {
			m[docKeys[r.IntN(len(docKeys))]] = randomDoc(r, depth-1)
		}
		return m
	default:
		if r.IntN(6) == 0 {
			return []any(nil)
		}
		l := make([]any, r.IntN(3))
		for i := range l {
			l[i] = randomDoc(r, depth-1)
		}
		return l
	}
}

// mutateDoc returns a copy of v with at most one change deep inside.
func mutateDoc(r *rand.Rand, v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return map[string]any{}
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = x
		}
		for k, x := range v {
			out[k] = mutateDoc(r, x)
			return out
		}
		out[docKeys[r.IntN(len(docKeys))]] = randomDoc(r, 1)
		return out
	case []any:
		if len(v) == 0 {
			return []any{}
		}
		out := append([]any(nil), v...)
		i := r.IntN(len(out))
		out[i] = mutateDoc(r, out[i])
		return out
	}
	if r.IntN(2) == 0 {
		return v
	}
	return randomDoc(r, 0)
}
