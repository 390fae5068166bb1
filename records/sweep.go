package records

import (
	"fmt"
	"strings"

	"github.com/ctrltest/ctrltest/actions"
)

// SweepOutcome is what a sync did with one injected fault.
type SweepOutcome struct {
	// Write is the failed write, or Call the failed call outside
	// Kubernetes (see fixture.Fixture.Call; Write is then the zero Action);
	// Occurrence counts identical writes or calls before it.
	Write      actions.Action
	Call       *Call
	Occurrence int
	// Fault names the injected fault; Hint is its Go check for
	// Row.HandlesFault (Fault.Hint), which String suggests when the sync
	// swallowed it.
	Fault, Hint string
	// Err is what the sync returned.
	Err error
	// Retried is true when the sync made the same request again (same verb,
	// resource, namespace and name) after the failure and the server
	// accepted it: the failure was handled by retrying.
	Retried bool
	// Handled is true when the row declares the fault handled.
	Handled bool
	// Gone is true when the fault says the object is gone (fixture.Fault.Gone),
	// which a sync may ignore.
	Gone bool
}

// Swallowed reports whether the sync hid the failure: it returned no error
// (so the key is not retried), did not retry the write with success, the
// fault does not say that the object is gone, and the row does not declare
// the fault handled.
func (o SweepOutcome) Swallowed() bool { return o.Err == nil && !o.Retried && !o.Handled && !o.Gone }

// SweepReport is the outcome of a fault sweep.
type SweepReport struct {
	Key      string
	Outcomes []SweepOutcome
	// Unswept counts the writes no fault was injected into: of three or
	// more writes of one kind in the sync (one verb, resource, subresource
	// and patch type: a loop's creates of pods, say), only the first and
	// the last are swept, so that a sync's cost does not grow with the
	// size of its loops.
	Unswept int
}

// Swallowed returns the outcomes whose failure the sync hid.
func (r *SweepReport) Swallowed() []SweepOutcome {
	var out []SweepOutcome
	for _, o := range r.Outcomes {
		if o.Swallowed() {
			out = append(out, o)
		}
	}
	return out
}

// String formats the sweep as one table: a line per write and fault. When
// a failure was swallowed, it ends with what to do about it: return the
// error, or declare the fault handled on purpose (fixture.Row.HandlesFault).
func (r *SweepReport) String() string {
	var b strings.Builder
	swallowed := r.Swallowed()
	fmt.Fprintf(&b, "fault sweep of sync %q: %d fault(s) injected, %d swallowed", r.Key, len(r.Outcomes), len(swallowed))
	if r.Unswept > 0 {
		fmt.Fprintf(&b, "; %d write(s) between the first and the last of their kind not swept", r.Unswept)
	}
	b.WriteByte('\n')
	width := 0
	for _, o := range r.Outcomes {
		width = max(width, len(o.failed()))
	}
	for _, o := range r.Outcomes {
		verdict := "returned error"
		switch {
		case o.Swallowed():
			verdict = "SWALLOWED (sync returned nil)"
		case o.Err == nil && o.Retried:
			verdict = "handled (retried; the retry succeeded)"
		case o.Handled && o.Err == nil:
			verdict = "handled (declared by the row)"
		case o.Gone && o.Err == nil:
			verdict = "ignored (the object is gone)"
		}
		fmt.Fprintf(&b, "  %-*s  %-13s  %s\n", width, o.failed(), o.Fault, verdict)
	}
	if len(swallowed) > 0 {
		o := swallowed[0]
		check := fmt.Sprintf("w.Verb == %q && w.Resource.Resource == %q", o.Write.Verb, o.Write.Resource.Resource)
		if p := o.Hint; p != "" {
			check += " && " + p
		}
		if o.Call != nil { // a call's fault is the fake's error
			check = fmt.Sprintf("w.Verb == \"\" && err.Error() == %q", o.Fault)
		}
		fmt.Fprintf(&b, "A sync that returns nil after a failed write is not retried: return the error (the work queue retries\n"+
			"the key), or retry the write in the sync; if ignoring the failure is right, declare it on the row (fixture.Row.HandlesFault):\n"+
			"\tHandlesFault: func(w actions.Action, err error) bool { return %s },\n", check)
	}
	return b.String()
}

// failed names the write or call the outcome failed.
func (o SweepOutcome) failed() string {
	if o.Call != nil {
		return "call " + o.Call.String()
	}
	return o.Write.String()
}
