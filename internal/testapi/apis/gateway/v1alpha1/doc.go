// +k8s:deepcopy-gen=package
// +k8s:openapi-gen=true
// +groupName=gateway.ctrltest.dev

// Package v1alpha1 is a test-only API group for ctrltest's own tests: a
// namespaced kind whose plural client-go would guess wrong (Gateway:
// "gateways", not "gatewaies") and a cluster-scoped kind (GatewayClass).
package v1alpha1
