package records

import (
	"fmt"
	"strings"
)

// CacheReport is the outcome of a stale-cache sweep of the sync of Key.
type CacheReport struct {
	Key  string
	Lags []LagOutcome
}

// LagOutcome is what the syncs did under one lag.
type LagOutcome struct {
	// Lag is "own-writes", "other-writer", "other-writer-field" or
	// "not-in-cache" (docs/caches.md); What says what lagged in this row.
	Lag, What string
	// Skipped, when not "", says why the lag does not apply to the row.
	Skipped string
	// Syncs counts the syncs; Settled is true when no key was left.
	Syncs   int
	Settled bool
	// Damage is what went wrong, in the order it was seen.
	Damage []Damage
	// Unjudged, when not "", says what the sweep could not judge, and why.
	Unjudged string
}

// Damage is what a lag made a controller do wrong.
type Damage struct {
	// Kind is "duplicate", "lost update", "overwrite", "lost object",
	// "wrong status" or "never settled" (docs/caches.md).
	Kind string
	// Step is the sync after which it was seen (1 is the row's).
	Step int
	// Text says what is wrong, naming the objects.
	Text string
	// Key is the key of the sync that did it and Writes its writes; Hint
	// says how controllers avoid this kind of damage.
	Key    string
	Writes []string
	Hint   string
}

// String formats the damage as one line: its kind, the sync and what happened.
func (d Damage) String() string {
	return fmt.Sprintf("%s after sync %d: %s", strings.ToUpper(d.Kind), d.Step, d.Text)
}

// Damaged returns the lags under which the controller did damage.
func (r *CacheReport) Damaged() []LagOutcome {
	var out []LagOutcome
	for _, o := range r.Lags {
		if len(o.Damage) > 0 {
			out = append(out, o)
		}
	}
	return out
}

// String formats the sweep: a paragraph per lag, then the hints.
func (r *CacheReport) String() string {
	var b strings.Builder
	ran := 0
	for _, o := range r.Lags {
		if o.Skipped == "" {
			ran++
		}
	}
	fmt.Fprintf(&b, "stale-cache sweep of sync %q: %d lag(s), %d damaged\n", r.Key, ran, len(r.Damaged()))
	var kinds []string
	hints := map[string]string{}
	for _, o := range r.Lags {
		if o.Skipped != "" {
			fmt.Fprintf(&b, "  %s: not applicable: %s\n", o.Lag, o.Skipped)
			continue
		}
		fmt.Fprintf(&b, "  %s: %s\n", o.Lag, o.What)
		for _, d := range o.Damage {
			if _, ok := hints[d.Kind]; !ok {
				kinds = append(kinds, d.Kind)
				hints[d.Kind] = d.Hint
			}
			fmt.Fprintf(&b, "    %s\n", d)
			if d.Key != "" {
				fmt.Fprintf(&b, "      sync %d (%q) wrote:\n", d.Step, d.Key)
				for _, w := range d.Writes {
					fmt.Fprintf(&b, "        %s\n", w)
				}
			}
		}
		state := fmt.Sprintf("settled after %d sync(s)", o.Syncs)
		if !o.Settled {
			state = fmt.Sprintf("did not settle within %d sync(s)", o.Syncs)
		}
		verdict := "ok"
		if len(o.Damage) > 0 {
			verdict = "DAMAGED"
		}
		fmt.Fprintf(&b, "    %s: %s\n", verdict, state)
		if o.Unjudged != "" {
			fmt.Fprintf(&b, "    %s\n", o.Unjudged)
		}
	}
	for _, k := range kinds {
		if hints[k] != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, hints[k])
		}
	}
	return b.String()
}
