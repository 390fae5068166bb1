// Package options is the one option type of packages actions and golden.
// An option of either is an Option; each function of theirs applies the
// options that concern it and ignores the others, so that an option both
// read (actions.KeepConditionTimes) is made in one place.
package options

// Option sets what a function of package actions or golden reads. Only
// this module can implement it: its method names this internal package.
type Option interface{ Apply(*Set) }

// Set is what options set: the settings of the package that applies them
// (Own, its *config; an option of the other package finds no config of its
// own there and does nothing) and those both packages read.
type Set struct {
	// Own is the applying package's settings.
	Own any
	// KeepConditionTimes: condition timestamps count by value
	// (actions.KeepConditionTimes).
	KeepConditionTimes bool
}

// Apply applies opts, nil ones skipped, to a Set whose Own is own.
func Apply[O Option](own any, opts []O) Set {
	s := Set{Own: own}
	for _, o := range opts {
		if Option(o) != nil {
			o.Apply(&s)
		}
	}
	return s
}
