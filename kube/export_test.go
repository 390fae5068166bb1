package kube

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrltest/ctrltest/fixture"
)

// Prepared is the object of the write v as kube-apiserver's registry
// strategy prepares it (see server.prepared), for the differential test.
func Prepared(v fixture.Validation) (runtime.Object, error) {
	return server{resources: resources()}.prepared(v)
}
