// +k8s:deepcopy-gen=package
// +k8s:openapi-gen=true
// +groupName=samplecontroller.ctrltest.dev

// Package v1alpha1 is the v1alpha1 version of the samplecontroller.ctrltest.dev
// API group: the Foo kind that the reference controller reconciles.
package v1alpha1
