package kcm

import (
	"fmt"
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

// BenchmarkCacheSweep is the cost of the stale-cache sweep on each table:
// every row through Table.RunRow, with and without Checks.CacheSweep. The
// sweep's bound is (1 + the lags run) × the row without it; lags/row
// says how many of the three lags the table's rows run on average (a lag
// that cannot apply to a row is skipped). Read cpu-ns/op: under a lag a
// controller may sleep (the StatefulSet controller retries a conflicting
// status update with retry.RetryOnConflict, 10ms apart, from a lister the
// lag keeps stale), which costs wall time but no CPU.
func BenchmarkCacheSweep(b *testing.B) {
	for _, c := range kcmTables() {
		lags := 0
		for _, row := range c.tb.Rows {
			for _, o := range c.tb.CacheSweep(b, row).Lags {
				if o.Skipped == "" {
					lags++
				}
			}
		}
		for _, sweep := range []bool{false, true} {
			b.Run(fmt.Sprintf("controller=%s/sweep=%v", c.name, sweep), func(b *testing.B) {
				c.tb.Checks = quick
				if sweep {
					c.tb.Checks.CacheSweep = fixture.On
				}
				benchRows(b, c.tb)
				b.ReportMetric(float64(lags)/float64(len(c.tb.Rows)), "lags/row")
			})
		}
	}
}
