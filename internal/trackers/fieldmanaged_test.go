package trackers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/ctrltest/ctrltest/internal/encoded"
)

// TestUnstructuredInputIsTheSameValue: structured-merge-diff reads a typed
// object with managed fields handed over as its unstructured form as the
// same value, with the same fields, as the object itself: times,
// quantities, int-or-strings, bytes, nil and empty fields, managed fields,
// with client-go's schema and a deduced one; and fails the same objects.
func TestUnstructuredInputIsTheSameValue(t *testing.T) {
	replicas := int32(2)
	grace := int64(0)
	maxSurge := intstr.FromString("25%")
	objs := []runtime.Object{
		&appsv1.Deployment{
			TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", Labels: map[string]string{"a": "b"}, Annotations: map[string]string{},
				CreationTimestamp: metav1.Unix(1767225600, 0), Generation: 3, ResourceVersion: "7", UID: "u",
				ManagedFields: []metav1.ManagedFieldsEntry{
					{Manager: "m", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "apps/v1", FieldsType: "FieldsV1",
						FieldsV1: newFieldsV1(`{"f:spec":{"f:replicas":{}}}`)},
					{Manager: "n", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "apps/v1", Subresource: "status"},
				}},
			Spec: appsv1.DeploymentSpec{
				Replicas: &replicas,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}},
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
					RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &maxSurge}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}},
					Spec: corev1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []corev1.Container{{
						Name: "c", Image: "i", Args: []string{},
						Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}},
						Ports:     []corev1.ContainerPort{{ContainerPort: 80, Protocol: corev1.ProtocolTCP}},
					}}},
				},
			},
			Status: appsv1.DeploymentStatus{Replicas: 1, Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, LastUpdateTime: metav1.Unix(1767225601, 0)}}},
		},
		&corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: metav1.ObjectMeta{Name: "s"},
			Data: map[string][]byte{"k": []byte("value"), "empty": nil}, Type: corev1.SecretTypeOpaque},
		&corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Name: "svc"},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}, Selector: map[string]string{}}},
		// A list map with a duplicate key: refused unless duplicates are
		// allowed (the live object's conversion).
		&corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "p"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}, {Name: "c"}}}},
		// No kind: no type to convert to.
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}},
	}
	converters := map[string]managedfields.TypeConverter{
		"client-go": applyconfigurations.NewTypeConverter(scheme.Scheme),
		"deduced":   managedfields.NewDeducedTypeConverter(),
	}
	refused := 0
	// An object without managed fields is handed over as it is: give
	// each one an entry.
	for _, obj := range objs[1:] {
		m, _ := meta.Accessor(obj)
		m.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			FieldsType: "FieldsV1", FieldsV1: newFieldsV1(`{"f:metadata":{"f:name":{}}}`)}})
	}
	for name, inner := range converters {
		in := unstructuredInput{inner, &encoded.FieldsV1Memo{}}
		for _, obj := range objs {
			for _, opts := range [][]typed.ValidationOptions{nil, {typed.AllowDuplicates}} {
				gvk := obj.GetObjectKind().GroupVersionKind()
				for round := range 2 { // the second with the fieldsV1 remembered
					want, wantErr := inner.ObjectToTyped(obj, opts...)
					got, gotErr := in.ObjectToTyped(obj, opts...)
					if (wantErr != nil) != (gotErr != nil) {
						t.Fatalf("%s, %v, options %v, round %d: error %v, want %v", name, gvk, opts, round, gotErr, wantErr)
					}
					if wantErr != nil {
						refused++
						continue
					}
					if !value.Equals(want.AsValue(), got.AsValue()) {
						t.Errorf("%s, %v, options %v, round %d: value\n%s\nwant\n%s", name, gvk, opts, round, value.ToString(got.AsValue()), value.ToString(want.AsValue()))
					}
					wantSet, err1 := want.ToFieldSet()
					gotSet, err2 := got.ToFieldSet()
					if err1 != nil || err2 != nil || !wantSet.Equals(gotSet) {
						t.Errorf("%s, %v, options %v, round %d: fields %v (%v), want %v (%v)", name, gvk, opts, round, gotSet, err2, wantSet, err1)
					}
				}
			}
		}
	}
	if refused == 0 {
		t.Error("no object was refused: the errors are not tested")
	}
}

// The field managers read the live object as it is (uncopied: no copy
// where it is of its kind's version already) and never change it: it is
// the stored object, shared with every reader. (The new object of an
// update they may change: the model passes a copy of its own.)
func TestFieldManagersChangeNotTheirInputs(t *testing.T) {
	fms := NewFieldManagers(scheme.Scheme, func() managedfields.TypeConverter { return applyconfigurations.NewTypeConverter(scheme.Scheme) })
	gvk := appsv1.SchemeGroupVersion.WithKind("Deployment")
	fm, err := fms.forWrite(gvk, "")
	if err != nil {
		t.Fatal(err)
	}
	replicas := int32(1)
	live := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", ResourceVersion: "3"},
		Spec:       appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}},
	}
	// A first update by one manager gives the live object managed fields.
	next := live.DeepCopy()
	next.Labels = map[string]string{"a": "b"}
	out, err := fm.Update(live, next, "first")
	if err != nil {
		t.Fatal(err)
	}
	live = out.(*appsv1.Deployment)
	liveBefore := live.DeepCopy()

	sent := live.DeepCopy()
	sent.ManagedFields = nil
	sent.Spec.Replicas = ptr.To[int32](3)
	if _, err := fm.Update(live, sent, "second"); err != nil {
		t.Fatal(err)
	}
	applied := &appsv1.Deployment{TypeMeta: live.TypeMeta, ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", Labels: map[string]string{"c": "d"}}}
	if _, err := fm.Apply(live, applied, "third", true); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(live, liveBefore) {
		t.Errorf("the field manager changed the live object:\n%s", cmp.Diff(liveBefore, live))
	}
}

// newFieldsV1 is metav1.NewFieldsV1, which client-go 1.35's apimachinery
// lacks (1.36 added it).
func newFieldsV1(raw string) *metav1.FieldsV1 {
	f := &metav1.FieldsV1{}
	if err := f.UnmarshalJSON([]byte(raw)); err != nil {
		panic(err)
	}
	return f
}
