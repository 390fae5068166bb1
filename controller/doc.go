// Package controller is the reference Foo controller of this repository. It
// behaves like the well-known Kubernetes sample controller: for every Foo
// (API group samplecontroller.ctrltest.dev, version v1alpha1) it makes sure a
// Deployment named by the Foo's spec.deploymentName exists in the Foo's
// namespace, is controlled by that Foo and runs spec.replicas replicas, and it
// copies the Deployment's number of available replicas into the Foo's status.
// A Deployment of that name that some other owner controls is left alone and
// reported with a Warning event.
//
// The controller exists to demonstrate and exercise ctrltest: it is a small,
// realistic subject for ctrltest's test helpers. It is ordinary client-go code
// and imports nothing from ctrltest's test packages, so it can be read and run
// on its own (see cmd/foo-controller and the manifests in artifacts).
package controller
