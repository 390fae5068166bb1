package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Foo asks for a Deployment named Spec.DeploymentName with Spec.Replicas
// replicas, and reports how many of them are available.
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FooSpec   `json:"spec"`
	Status FooStatus `json:"status,omitempty"`
}

// FooSpec is the desired state of a Foo.
type FooSpec struct {
	// DeploymentName names the Deployment the Foo controls, in the Foo's namespace.
	DeploymentName string `json:"deploymentName"`
	// Replicas is the desired number of replicas of the Deployment.
	Replicas *int32 `json:"replicas"`
}

// FooStatus is the observed state of a Foo.
type FooStatus struct {
	// AvailableReplicas is the Deployment's number of available replicas.
	AvailableReplicas int32 `json:"availableReplicas"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FooList is a list of Foos.
type FooList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Foo `json:"items"`
}
