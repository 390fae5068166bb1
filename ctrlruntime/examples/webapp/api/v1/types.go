// Package v1 is a small kubebuilder-style API for the example reconciler:
// a WebApp runs an image as a Deployment behind a Service. Its deep-copy
// functions are written by hand (controller-gen would generate them).
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the API's group and version.
var GroupVersion = schema.GroupVersion{Group: "webapp.example.com", Version: "v1"}

// AddToScheme adds the API's types to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &WebApp{}, &WebAppList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// WebApp runs an image as a Deployment behind a Service.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type WebApp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WebAppSpec   `json:"spec,omitempty"`
	Status WebAppStatus `json:"status,omitempty"`
}

// WebAppSpec is what the user wants.
type WebAppSpec struct {
	// Image is the container image; it must not be empty.
	Image string `json:"image"`
	// Replicas is the number of pods.
	Replicas int32 `json:"replicas,omitempty"`
	// Port is the port the container listens on and the Service serves.
	Port int32 `json:"port,omitempty"`
}

// WebAppStatus is what the controller observed.
type WebAppStatus struct {
	// ObservedGeneration is the generation the conditions describe.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: Available is True once every replica is available.
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// WebAppList is a list of WebApps.
type WebAppList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []WebApp `json:"items"`
}

// DeepCopyInto copies the receiver into out.
func (in *WebApp) DeepCopyInto(out *WebApp) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = in.Spec
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a deep copy.
func (in *WebApp) DeepCopy() *WebApp {
	if in == nil {
		return nil
	}
	out := new(WebApp)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy.
func (in *WebApp) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopyInto copies the receiver into out.
func (in *WebAppStatus) DeepCopyInto(out *WebAppStatus) {
	*out = *in
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

// DeepCopyInto copies the receiver into out.
func (in *WebAppList) DeepCopyInto(out *WebAppList) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]WebApp, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a deep copy.
func (in *WebAppList) DeepCopy() *WebAppList {
	if in == nil {
		return nil
	}
	out := new(WebAppList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy.
func (in *WebAppList) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns a deep copy.
func (in *WebAppStatus) DeepCopy() *WebAppStatus {
	if in == nil {
		return nil
	}
	out := new(WebAppStatus)
	in.DeepCopyInto(out)
	return out
}
