package actions

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// TestTypedSubsetAgreesWithUnstructured: the typed walk that diffObjects
// takes under Subset says "equal" only where the comparison of the
// unstructured forms finds no difference, and says it for nearly every such
// pair. The pairs are rich objects of three kinds against copies with
// fields randomly cleared (still a subset) or changed (not one), lists
// shortened, map entries added and removed, condition times moved.
func TestTypedSubsetAgreesWithUnstructured(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	fast := newConfig([]Option{Subset()})
	// The same comparison without the walk: a normalizer that is not the
	// default one turns it off.
	slow := newConfig([]Option{Subset(), Normalize(func(runtime.Object) {})})
	var equal, unequal, walked int
	for _, keep := range []bool{false, true} {
		fast.keepConditionTimes, slow.keepConditionTimes = keep, keep
		for i := range 3000 {
			got := richObject(r, i)
			want := got.DeepCopyObject()
			perturb(r, reflect.ValueOf(want).Elem(), 0)
			slowSays := slow.diffObjects(want, got) == ""
			sw, sg := shallowVolatile(want), shallowVolatile(got)
			fastSays := fast.typedSubsetEqual(sw, sg)
			if fastSays && !slowSays {
				t.Fatalf("pair %d (keep times %v): the typed walk says equal, the unstructured comparison says\n%s", i, keep, slow.diffObjects(want, got))
			}
			if slowSays {
				equal++
				if fastSays {
					walked++
				}
			} else {
				unequal++
			}
			if d := fast.diffObjects(want, got); (d == "") != slowSays {
				t.Fatalf("pair %d: diffObjects with the walk says %q, without it equal=%v", i, d, slowSays)
			}
		}
	}
	t.Logf("%d equal (%d walked), %d unequal", equal, walked, unequal)
	if equal < 1000 || unequal < 1000 {
		t.Errorf("the pairs compared %d equal and %d unequal, want at least 1000 of each", equal, unequal)
	}
	if walked*100 < equal*95 {
		t.Errorf("the typed walk decided %d of %d equal pairs, want at least 95%%", walked, equal)
	}
}

// TestTypedSubsetCases: hand-picked pairs the walk must get right.
func TestTypedSubsetCases(t *testing.T) {
	base := func() *appsv1.Deployment {
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"}, ResourceVersion: "7"},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](3),
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "c", Image: "nginx", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
				}}}},
			},
			Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{Type: "Available", Status: "True", LastUpdateTime: metav1.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)}}},
		}
	}
	for _, tc := range []struct {
		name  string
		edit  func(want *appsv1.Deployment)
		equal bool
	}{
		{"equal", func(*appsv1.Deployment) {}, true},
		{"volatile metadata", func(w *appsv1.Deployment) { w.ResourceVersion = "1" }, true},
		{"a cleared field", func(w *appsv1.Deployment) { w.Labels = nil }, true},
		{"zero replicas count as unset", func(w *appsv1.Deployment) { w.Spec.Replicas = ptr.To[int32](0) }, true},
		{"other replicas", func(w *appsv1.Deployment) { w.Spec.Replicas = ptr.To[int32](2) }, false},
		{"a zero quantity is set", func(w *appsv1.Deployment) {
			w.Spec.Template.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU] = resource.Quantity{}
		}, false},
		{"an equal quantity spelled otherwise", func(w *appsv1.Deployment) {
			w.Spec.Template.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU] = resource.MustParse("0.1")
		}, true},
		{"a condition time moved", func(w *appsv1.Deployment) {
			w.Status.Conditions[0].LastUpdateTime = metav1.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		}, true},
		{"an extra container", func(w *appsv1.Deployment) {
			w.Spec.Template.Spec.Containers = append(w.Spec.Template.Spec.Containers, corev1.Container{Name: "d"})
		}, false},
		{"a label not on the object", func(w *appsv1.Deployment) { w.Labels["tier"] = "x" }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, got := base(), base()
			tc.edit(want)
			c := newConfig([]Option{Subset()})
			if d := c.diffObjects(want, got); (d == "") != tc.equal {
				t.Errorf("diffObjects = %q, want equal %v", d, tc.equal)
			}
			if tc.equal && !c.typedSubsetEqual(shallowVolatile(want), shallowVolatile(got)) {
				t.Errorf("the typed walk does not decide an equal pair")
			}
		})
	}
}

// richObject returns one of three kinds of objects with most kinds of
// field filled in: pointers, maps, lists of structs, quantities,
// int-or-strings, times in and outside conditions.
func richObject(r *rand.Rand, i int) runtime.Object {
	word := func() string { return fmt.Sprintf("w%d", r.IntN(4)) }
	labels := map[string]string{"app": word(), "tier": word()}
	t0 := metav1.Date(2020, 1, 1, r.IntN(3), 0, 0, 0, time.UTC)
	container := corev1.Container{
		Name: word(), Image: word(), Args: []string{word(), word()},
		Ports:     []corev1.ContainerPort{{ContainerPort: int32(r.IntN(3) + 80), Protocol: corev1.ProtocolTCP}},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: *resource.NewQuantity(int64(r.IntN(3)), resource.BinarySI)}},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: "/", Port: intstr.FromInt32(int32(r.IntN(2)))}}, PeriodSeconds: int32(r.IntN(2))},
	}
	meta := metav1.ObjectMeta{Name: word(), Namespace: "default", Labels: labels, ResourceVersion: word(), Generation: int64(r.IntN(3))}
	switch i % 3 {
	case 0:
		return &appsv1.Deployment{
			ObjectMeta: meta,
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To(int32(r.IntN(3))), Selector: &metav1.LabelSelector{MatchLabels: labels},
				Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge: ptr.To(intstr.FromString("25%")), MaxUnavailable: ptr.To(intstr.FromInt32(int32(r.IntN(2))))}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{container}}},
			},
			Status: appsv1.DeploymentStatus{Replicas: int32(r.IntN(2)), Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, LastUpdateTime: t0, LastTransitionTime: t0, Reason: word()},
			}},
		}
	case 1:
		return &corev1.Pod{
			ObjectMeta: meta,
			Spec:       corev1.PodSpec{Containers: []corev1.Container{container, container}, NodeName: word(), Overhead: corev1.ResourceList{}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &t0, Conditions: []corev1.PodCondition{
				{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastProbeTime: t0},
			}},
		}
	}
	return &batchv1.Job{
		ObjectMeta: meta,
		Spec: batchv1.JobSpec{Parallelism: ptr.To(int32(r.IntN(2))), BackoffLimit: ptr.To(int32(6)),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{container}, RestartPolicy: corev1.RestartPolicyNever}}},
		Status: batchv1.JobStatus{Active: int32(r.IntN(3)), StartTime: &t0, Conditions: []batchv1.JobCondition{
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastProbeTime: t0, LastTransitionTime: t0},
		}},
	}
}

var (
	quantityType = reflect.TypeFor[resource.Quantity]()
	timeType     = reflect.TypeFor[metav1.Time]()
	intstrType   = reflect.TypeFor[intstr.IntOrString]()
)

// perturb changes v in place at random: most of the time it leaves a value
// alone or clears it (which keeps want a subset of got), rarely it changes
// a scalar, shortens a list or adds a map entry (which does not).
func perturb(r *rand.Rand, v reflect.Value, depth int) {
	if !v.CanSet() {
		return
	}
	switch n := r.IntN(100); {
	case n < 8:
		v.SetZero()
		return
	case n < 10:
		change(r, v)
		return
	}
	switch v.Type() {
	case quantityType, timeType, intstrType:
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			perturb(r, v.Elem(), depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			perturb(r, v.Field(i), depth+1)
		}
	case reflect.Slice:
		for i := range v.Len() {
			perturb(r, v.Index(i), depth+1)
		}
	case reflect.Map:
		if v.Len() > 0 && r.IntN(4) == 0 {
			v.SetMapIndex(v.MapKeys()[0], reflect.Value{}) // a subset still
		}
	}
}

// change makes v differ from what it was, where it knows how.
func change(r *rand.Rand, v reflect.Value) {
	switch v.Type() {
	case quantityType:
		q := v.Interface().(resource.Quantity)
		q.Add(resource.MustParse("1"))
		v.Set(reflect.ValueOf(q))
		return
	case timeType:
		tm := v.Interface().(metav1.Time)
		v.Set(reflect.ValueOf(metav1.NewTime(tm.Add(time.Hour))))
		return
	case intstrType:
		v.Set(reflect.ValueOf(intstr.FromString("x")))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Slice:
		if v.Len() > 0 {
			v.Set(v.Slice(0, v.Len()-1))
		}
	case reflect.Map:
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		if v.Type().Key().Kind() == reflect.String && v.Type().Elem().Kind() == reflect.String {
			v.SetMapIndex(reflect.ValueOf("extra").Convert(v.Type().Key()), reflect.ValueOf("x").Convert(v.Type().Elem()))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			change(r, v.Elem())
		}
	}
}

// BenchmarkSubset compares a rich Deployment with a copy under Subset, with
// the typed walk (walk=typed) and without it (walk=none: the unstructured
// conversion of both objects).
func BenchmarkSubset(b *testing.B) {
	got := richObject(rand.New(rand.NewPCG(1, 1)), 0)
	w := got.DeepCopyObject().(*appsv1.Deployment)
	w.Status = appsv1.DeploymentStatus{} // a subset: what a row typically expects
	want := []Action{Update(w)}
	have := []Action{Update(got)}
	for _, tc := range []struct {
		walk string
		opts []Option
	}{
		{"typed", []Option{Subset()}},
		{"none", []Option{Subset(), Normalize(func(runtime.Object) {})}},
	} {
		b.Run("walk="+tc.walk, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if d := Diff(want, have, tc.opts...); d != "" {
					b.Fatal(d)
				}
			}
		})
	}
}
