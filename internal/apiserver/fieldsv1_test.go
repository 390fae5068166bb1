package apiserver

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// newFieldsV1 is metav1.NewFieldsV1, which client-go 1.35's apimachinery
// lacks (1.36 added it).
func newFieldsV1(raw string) *metav1.FieldsV1 {
	f := &metav1.FieldsV1{}
	if err := f.UnmarshalJSON([]byte(raw)); err != nil {
		panic(err)
	}
	return f
}
