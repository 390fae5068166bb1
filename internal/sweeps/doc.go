// Package sweeps holds the judges of the fixture's sweeps that need no
// fixture: which objects a stale-cache sweep counts as one controller's
// (groups) and how it compares statuses between runs; which keys the
// event handlers must enqueue when an event-order sweep delivers the
// changes of a sync another way; what a write's patch requires of the
// stored object, for the fault sweep's conflicts. The fixture runs the
// sweeps and reports.
package sweeps
