// Package options is what the options of packages actions and golden
// share: one way to apply them, and the settings both read
// (actions.KeepConditionTimes, an option of both). An option of one
// package alone is not an option of the other: the compiler refuses it.
package options

// Option sets what a function of package actions or golden reads. Only
// this module can implement it: its method names this internal package.
type Option interface{ Apply(*Set) }

// Actions is an option of package actions (actions.Option).
type Actions interface {
	Option
	ActionsOption()
}

// Golden is an option of package golden (golden.Option).
type Golden interface {
	Option
	GoldenOption()
}

// Both is an option of both packages (actions.KeepConditionTimes).
type Both interface {
	Actions
	Golden
}

// Set is what options set: the settings of the package that applies them
// (Own, its *config) and those both packages read.
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
