package kcm

import (
	"testing"

	"github.com/ctrltest/ctrltest/fixture"
)

// TestCacheSweep runs the stale-cache sweep (fixture.Table.CacheSweep) on
// every row of kube-controller-manager's controllers: they were built for
// lagging caches (expectations, a consistency store, names derived from
// the owner, writes that carry the resourceVersion they read), and must
// come out of every lag without damage: no duplicate, lost update, lost
// object or wrong status, and settled once the caches caught up.
func TestCacheSweep(t *testing.T) {
	runTablesWith(t, fixture.Checks{CacheSweep: fixture.On})
}
