package kcm

import "testing"

// TestCacheSweep runs the stale-cache sweep (fixture.Table.CacheSweep) on
// every row of kube-controller-manager's controllers: they were built for
// lagging caches (expectations, a consistency store, names derived from
// the owner, writes that carry the resourceVersion they read), and must
// come out of every lag without damage: no duplicate, lost update, lost
// object or wrong status, and settled once the caches caught up.
func TestCacheSweep(t *testing.T) {
	for _, c := range kcmTables() {
		for _, row := range c.tb.Rows {
			t.Run(c.name+"/"+row.Name, func(t *testing.T) {
				report := c.tb.CacheSweep(t, row)
				if len(report.Damaged()) > 0 {
					t.Errorf("%s", report)
					return
				}
				t.Logf("%s", report)
			})
		}
	}
}
