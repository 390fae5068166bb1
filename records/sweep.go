package records

import (
	"fmt"
	"strings"

	"github.com/ctrltest/ctrltest/actions"
)

// SweepOutcome is what a sync did with one injected fault.
type SweepOutcome struct {
	// Write is the failed write, or Call the failed call (Write is then
	// zero); Occurrence counts identical writes or calls before it.
	Write      actions.Action
	Call       *Call
	Occurrence int
	// Fault names the injected fault; Hint is its fixture.Fault.Hint.
	Fault, Hint string
	Err         error
	// Retried is true when a later identical request succeeded.
	Retried bool
	// Handled is true when the row declares the fault handled.
	Handled bool
	// Gone is fixture.Fault.Gone: a sync may ignore the fault.
	Gone bool
}

// Swallowed reports whether the sync hid the failure: it returned no
// error, did not retry with success, and neither Gone nor Handled is set.
func (o SweepOutcome) Swallowed() bool { return o.Err == nil && !o.Retried && !o.Handled && !o.Gone }

// SweepReport is the outcome of a fault sweep.
type SweepReport struct {
	Key      string
	Outcomes []SweepOutcome
	// Unswept counts the writes not swept: of three or more writes of
	// one kind (a loop's creates), only the first and the last are swept.
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

// String formats the sweep as one table, a line per write and fault, then
// what to do about a swallowed failure.
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
