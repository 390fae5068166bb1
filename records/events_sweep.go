package records

import (
	"fmt"
	"strings"
)

// KeyMismatch is one object whose event, delivered another way, made the
// controller's event handlers enqueue other keys than watch order did.
type KeyMismatch struct {
	// Object names the object ("configmaps default/web-old"); Event is
	// what the variant gave the handlers ("a tombstone (relist)"); Watch,
	// the last event in watch order it stands for ("" for a resync).
	Object, Event, Watch string
	// Want are the keys the handlers enqueued for that last event in watch
	// order, Got those under the variant, sorted, each "key" or "queue:
	// key". A resync's Want is empty.
	Want, Got []string
	// Missing are the keys of Want not in Got; Unexpected, the keys of
	// Got that watch order never enqueued (resync).
	Missing, Unexpected []string
}

// String says what the object's event enqueued, and what it should have.
func (m KeyMismatch) String() string {
	if m.Watch == probeDelete {
		return fmt.Sprintf("%s: %s enqueued %s; %s of it enqueued %s", m.Object, m.Event, keyList(m.Got), m.Watch, keyList(m.Want))
	}
	if m.Watch == "" {
		s := fmt.Sprintf("%s: %s enqueued %s, which no event in watch order enqueued", m.Object, m.Event, keyList(m.Unexpected))
		if len(m.Got) > len(m.Unexpected) {
			s += fmt.Sprintf(" (all it enqueued: %s)", keyList(m.Got))
		}
		return s
	}
	return fmt.Sprintf("%s: %s enqueued %s; in watch order (%s) the handlers enqueued %s; missing: %s",
		m.Object, m.Event, keyList(m.Got), m.Watch, keyList(m.Want), keyList(m.Missing))
}

// probeDelete is the Watch of a tombstone's mismatch in the handlers
// variant.
const probeDelete = "a plain delete"

func keyList(keys []string) string {
	if len(keys) == 0 {
		return "nothing"
	}
	return strings.Join(keys, ", ")
}

// EventOutcome is what the handlers did under one variant.
type EventOutcome struct {
	// Variant is "coalesced", "relist", "resync" or "handlers"
	// (docs/caches.md); What says what was delivered.
	Variant, What string
	// Skipped, when not "", says why the variant did not run.
	Skipped string
	// Events counts the events the handlers got; Kinds, by kind.
	Events int
	Kinds  string
	// Panic, when not "", is a handler's panic, which ended the delivery.
	Panic string
	// Mismatches are the objects whose events enqueued other keys.
	Mismatches []KeyMismatch
}

// Failed reports whether a handler panicked or enqueued other keys.
func (o EventOutcome) Failed() bool { return o.Panic != "" || len(o.Mismatches) > 0 }

// EventReport is the outcome of an event-order sweep.
type EventReport struct {
	Key      string
	Variants []EventOutcome
	// Unjudged, when not "", says why the variants' keys judge nothing;
	// panics are judged all the same.
	Unjudged string
}

// Failed returns the variants under which the handlers failed.
func (r *EventReport) Failed() []EventOutcome {
	var out []EventOutcome
	for _, o := range r.Variants {
		if o.Failed() {
			out = append(out, o)
		}
	}
	return out
}

// Ran counts the variants that applied to the row.
func (r *EventReport) Ran() int {
	n := 0
	for _, o := range r.Variants {
		if o.Skipped == "" {
			n++
		}
	}
	return n
}

// String formats the sweep: a paragraph per variant, then the hints.
func (r *EventReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "event-order sweep of sync %q: %d variant(s), %d failed\n", r.Key, r.Ran(), len(r.Failed()))
	if r.Unjudged != "" {
		fmt.Fprintf(&b, "  the keys judge nothing: %s\n", r.Unjudged)
	}
	failed := map[string]bool{}
	for _, o := range r.Variants {
		if o.Skipped != "" {
			fmt.Fprintf(&b, "  %s: not applicable: %s\n", o.Variant, o.Skipped)
			continue
		}
		fmt.Fprintf(&b, "  %s: %s\n    %d event(s)%s\n", o.Variant, o.What, o.Events, o.Kinds)
		for _, m := range o.Mismatches {
			fmt.Fprintf(&b, "    %s\n", m)
		}
		if o.Panic != "" {
			fmt.Fprintf(&b, "    %s\n", strings.ReplaceAll(o.Panic, "\n", "\n    "))
		}
		verdict := "ok"
		if o.Failed() {
			verdict = "FAILED"
			failed[o.Variant] = true
		}
		fmt.Fprintf(&b, "    %s\n", verdict)
	}
	for _, v := range []string{"coalesced", "relist", "resync", "handlers"} {
		if failed[v] {
			fmt.Fprintf(&b, "%s: %s\n", v, eventHint[v])
		}
	}
	return b.String()
}

// eventHint says how handlers meet each variant.
var eventHint = map[string]string{
	"coalesced": "several changes of one object can reach a handler as one event: an update from the first old\n" +
		"object to the last, an add of the last state, or an update from the old object to a re-created one (another\n" +
		"UID). Enqueue on every add, update and delete what the object's new and old state call for.",
	"relist": "when the informer missed a delete, its handler gets a cache.DeletedFinalStateUnknown whose Obj is the\n" +
		"last state the cache knew (it may be nil): unwrap it before reading the object\n" +
		"(if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok { obj = tomb.Obj }).",
	"resync": "a resync gives every cached object as an update with old == new: enqueue nothing (compare the\n" +
		"resourceVersions) or the keys an add of the object would.",
	"handlers": "every handler gets any object as an add, an update and a delete, and a delete as a\n" +
		"cache.DeletedFinalStateUnknown when the informer missed it: unwrap the tombstone before reading the object\n" +
		"(if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok { obj = tomb.Obj }), and enqueue for it what a plain\n" +
		"delete enqueues; never assume a type without checking it.",
}
