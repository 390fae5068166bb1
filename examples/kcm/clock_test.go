package kcm

import (
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

// fixedClock is a fake clock at a fixed instant, for the controllers
// that stamp times (the Job controller's startTime, the CronJob
// controller's schedule): the same world on every run.
func fixedClock() *testingclock.FakeClock {
	return testingclock.NewFakeClock(time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC))
}
