package kcm

import (
	"testing"

	"github.com/ctrltest/ctrltest/fixture"
)

// TestFaultSweep runs the fault sweep (fixture.Checks.FaultSweep) on every
// row of kube-controller-manager's controllers: each write of a row's
// sync fails once per fault kube-apiserver could answer it with, and the
// controller must return the error or retry the write with success. A
// not-found it ignores is right (the object is gone: the ReplicaSet
// controller takes a pod's delete answered so as done, and an adoption of a
// pod that is gone as nothing to adopt).
func TestFaultSweep(t *testing.T) {
	runTablesWith(t, fixture.Checks{FaultSweep: fixture.On})
}
