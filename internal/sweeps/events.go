package sweeps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctrltest/ctrltest/internal/records"
)

// Mismatch is one object whose event, delivered another way, made the
// handlers enqueue other keys than watch order did (the fixture's
// KeyMismatch, field for field).
type Mismatch struct {
	Object, Event, Watch string
	Want, Got            []string
	Missing, Unexpected  []string
}

// KindsOf counts events by what they were: ": an update (relist) ×2, a
// tombstone (relist)", in the order each first came.
func KindsOf(told []records.Told) string {
	var whats []string
	n := map[string]int{}
	for _, e := range told {
		if n[e.What]++; n[e.What] == 1 {
			whats = append(whats, e.What)
		}
	}
	if len(whats) < 2 {
		if len(whats) == 1 {
			return ", each " + whats[0]
		}
		return ""
	}
	parts := make([]string, len(whats))
	for i, w := range whats {
		parts[i] = w
		if n[w] > 1 {
			parts[i] += fmt.Sprintf(" ×%d", n[w])
		}
	}
	return ": " + strings.Join(parts, ", ")
}

// BeforePanic leaves out of told the event a handler panicked on, if one
// did: the panic is the failure it reports.
func BeforePanic(told []records.Told, panicked error) []records.Told {
	if panicked != nil && len(told) > 0 {
		return told[:len(told)-1]
	}
	return told
}

// objectEvents gathers, per object (resource and key), what events the
// handlers got and the keys they enqueued, in the order objects first
// appear.
type objectEvents struct {
	order []string
	whats map[string][]string
	keys  map[string]map[string]bool
}

func gather(told []records.Told) *objectEvents {
	g := &objectEvents{whats: map[string][]string{}, keys: map[string]map[string]bool{}}
	for _, e := range told {
		id := e.Resource + " " + e.Key
		if _, ok := g.keys[id]; !ok {
			g.order = append(g.order, id)
			g.keys[id] = map[string]bool{}
		}
		if !slices.Contains(g.whats[id], e.What) {
			g.whats[id] = append(g.whats[id], e.What)
		}
		for _, k := range e.Keys {
			g.keys[id][k] = true
		}
	}
	return g
}

// lastOfEach keeps, of each informer's events of an object, the last, and
// names it "an update (the last of 2)" when there were more.
func lastOfEach(told []records.Told) []records.Told {
	type id struct{ informer, key string }
	n := map[id]int{}
	for _, e := range told {
		n[id{e.Informer, e.Key}]++
	}
	out := make([]records.Told, 0, len(n))
	seen := map[id]int{}
	for _, e := range told {
		i := id{e.Informer, e.Key}
		if seen[i]++; seen[i] < n[i] {
			continue
		}
		if n[i] > 1 {
			e.What = fmt.Sprintf("%s, the last of %d", e.What, n[i])
		}
		out = append(out, e)
	}
	return out
}

// MissingKeys compares, for every object a variant told the handlers of,
// the keys they enqueued with those its last event enqueued in watch
// order (ref): the variant's event stands for that one. What earlier
// events enqueued is not asked for: they told of states a coalesced or
// relisted delivery never shows.
func MissingKeys(ref, variant []records.Told) []Mismatch {
	want, got := gather(lastOfEach(ref)), gather(variant)
	var out []Mismatch
	for _, id := range got.order {
		w, ok := want.keys[id]
		if !ok {
			continue
		}
		var missing []string
		for k := range w {
			if !got.keys[id][k] {
				missing = append(missing, k)
			}
		}
		if len(missing) == 0 {
			continue
		}
		slices.Sort(missing)
		out = append(out, Mismatch{Object: id, Event: strings.Join(got.whats[id], ", "), Watch: strings.Join(want.whats[id], ", "),
			Want: sortedKeys(w), Got: sortedKeys(got.keys[id]), Missing: missing})
	}
	return out
}

// UnexpectedKeys finds the objects whose resync enqueued a key outside
// all.
func UnexpectedKeys(all map[string]bool, resync []records.Told) []Mismatch {
	got := gather(resync)
	var out []Mismatch
	for _, id := range got.order {
		var unexpected []string
		for k := range got.keys[id] {
			if !all[k] {
				unexpected = append(unexpected, k)
			}
		}
		if len(unexpected) == 0 {
			continue
		}
		slices.Sort(unexpected)
		out = append(out, Mismatch{Object: id, Event: "a resync", Got: sortedKeys(got.keys[id]), Unexpected: unexpected})
	}
	return out
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
