package kcm

import (
	"fmt"
	"testing"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/tbtest"
)

// kcmTables are the tables of kube-controller-manager's controllers.
func kcmTables() []struct {
	name string
	tb   fixture.Table[string]
} {
	return []struct {
		name string
		tb   fixture.Table[string]
	}{
		{"Deployment", deploymentTable()},
		{"StatefulSet", statefulSetTable()},
		{"ReplicaSet", replicaSetTable()},
		{"DaemonSet", daemonSetTable()},
		{"Job", jobTable()},
		{"CronJob", cronJobTable()},
	}
}

// TestEventOrders runs the event-order sweep (fixture.Table.EventSweep)
// on every row of kube-controller-manager's controllers: their event
// handlers were written for every way client-go delivers events (they
// unwrap tombstones, compare resourceVersions to skip resyncs, enqueue
// the old and the new owner on an update), and must pass.
func TestEventOrders(t *testing.T) {
	runTablesWith(t, fixture.Checks{EventSweep: fixture.On})
}

// runTablesWith runs every table of kcmTables with checks switched on
// over its own, as a user turns a check on for a table.
func runTablesWith(t *testing.T, checks fixture.Checks) {
	for _, c := range kcmTables() {
		t.Run(c.name, func(t *testing.T) {
			tb := c.tb
			if checks.CacheSweep != fixture.Inherit {
				tb.Checks.CacheSweep = checks.CacheSweep
			}
			if checks.EventSweep != fixture.Inherit {
				tb.Checks.EventSweep = checks.EventSweep
			}
			if checks.FaultSweep != fixture.Inherit {
				tb.Checks.FaultSweep = checks.FaultSweep
			}
			tb.Run(t)
		})
	}
}

// BenchmarkEventOrders is the cost of the event-order sweep on each
// table: every row through Table.RunRow, with and without Checks.EventSweep.
func BenchmarkEventOrders(b *testing.B) {
	for _, c := range kcmTables() {
		for _, sweep := range []bool{false, true} {
			b.Run(fmt.Sprintf("controller=%s/sweep=%v", c.name, sweep), func(b *testing.B) {
				c.tb.Checks = quick
				if sweep {
					c.tb.Checks.EventSweep = fixture.On
				}
				benchRows(b, c.tb)
			})
		}
	}
}

// quick are the checks go test -short runs: the sweeps off.
var quick = fixture.Checks{FaultSweep: fixture.Off, CacheSweep: fixture.Off, EventSweep: fixture.Off}

// BenchmarkChecks is the cost of every check, on by default, beside the
// quick set go test -short runs: every row of each table through
// Table.RunRow as one op. Compare with
//
//	go test -run '^$' -bench Checks -benchtime 10x -count 6 . | go tool -modfile=../../hack/tools/go.mod benchstat -col /checks -
func BenchmarkChecks(b *testing.B) {
	for _, c := range kcmTables() {
		for _, checks := range []string{"quick", "all"} {
			b.Run(fmt.Sprintf("controller=%s/checks=%s", c.name, checks), func(b *testing.B) {
				c.tb.Checks = fixture.Checks{}
				if checks == "quick" {
					c.tb.Checks = quick
				}
				benchRows(b, c.tb)
			})
		}
	}
}

// benchRows runs every row of tb through Table.RunRow as one op, and
// reports the process's CPU time per op (cpu-ns/op) beside its wall time.
func benchRows(b *testing.B, tb fixture.Table[string]) {
	b.ReportAllocs()
	cpu0, cpuOK := processCPU()
	for b.Loop() {
		for _, row := range tb.Rows {
			op := tbtest.PerOp(b)
			tb.RunRow(op, row)
			op.Done()
		}
	}
	b.StopTimer()
	if cpu1, ok := processCPU(); ok && cpuOK {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
}
