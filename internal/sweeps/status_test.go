package sweeps

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// TestMaskVolatile: a status compared between two runs keeps what it
// counts and lists, and leaves out or masks what differs between correct
// runs.
func TestMaskVolatile(t *testing.T) {
	status := func(started, rv string) map[string]any {
		return map[string]any{
			"replicas":           int64(2),
			"observedGeneration": int64(3),
			"conditions":         []any{map[string]any{"type": "Ready", "reason": "Found"}},
			"startTime":          started,
			"active":             []any{map[string]any{"name": "job-1", "uid": "u-" + rv, "resourceVersion": rv}},
			"message":            "not a time",
		}
	}
	a := MaskVolatile(status("2026-01-01T00:00:00Z", "3"))
	b := MaskVolatile(status("2026-11-25T22:00:00Z", "7"))
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("statuses of two correct runs differ (-a +b):\n%s", d)
	}
	want := map[string]any{
		"replicas":  int64(2),
		"startTime": VolatileSet,
		"active":    []any{map[string]any{"name": "job-1", "uid": VolatileSet, "resourceVersion": VolatileSet}},
		"message":   "not a time",
	}
	if d := cmp.Diff(want, a); d != "" {
		t.Errorf("MaskVolatile (-want +got):\n%s", d)
	}
	c := status("2026-01-01T00:00:00Z", "3")
	c["replicas"] = int64(1)
	if reflect.DeepEqual(a, MaskVolatile(c)) {
		t.Error("a status that counts another number of replicas compares equal")
	}
}

// TestStatusConvertsTheStatusAlone: Status of a typed object, which
// converts its status field alone, is what the conversion of the whole
// object gives, for objects with a status, without one, with an empty one,
// and unstructured.
func TestStatusConvertsTheStatusAlone(t *testing.T) {
	started := metav1.NewTime(time.Date(2026, 11, 25, 22, 0, 0, 0, time.UTC))
	deployment := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Generation: 2},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](3)},
		Status: appsv1.DeploymentStatus{Replicas: 3, ReadyReplicas: 2, ObservedGeneration: 2,
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, LastUpdateTime: started}}},
	}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"}, Status: batchv1.JobStatus{StartTime: &started, Active: 1}}
	cronJob := &batchv1.CronJob{Status: batchv1.CronJobStatus{Active: []corev1.ObjectReference{{Name: "j", UID: "u1", ResourceVersion: "4"}}}}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(deployment)
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range []runtime.Object{
		deployment, job, cronJob, &corev1.Pod{}, &corev1.ConfigMap{Data: map[string]string{"a": "b"}},
		&unstructured.Unstructured{Object: u}, &unstructured.Unstructured{Object: map[string]any{"kind": "Widget"}},
		&phased{Status: "Running"}, &wrapped{inner: inner{Status: appsv1.DeploymentStatus{Replicas: 4}}},
	} {
		want := statusOfWhole(obj)
		if d := cmp.Diff(want, Status(obj)); d != "" {
			t.Errorf("%T: Status (-whole +status alone):\n%s", obj, d)
		}
	}
	if got, ok := Status(&wrapped{inner: inner{Status: appsv1.DeploymentStatus{Replicas: 4}}}).(map[string]any); !ok || got["replicas"] != int64(4) {
		t.Errorf("Status(wrapped) = %v", got)
	}
	if got, ok := Status(deployment).(map[string]any); !ok || got["readyReplicas"] != int64(2) {
		t.Errorf("Status(deployment) = %v", Status(deployment))
	}
	// MaskVolatile changes what it masks in place: an unstructured
	// object's own status stays as it was.
	uu := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"observedGeneration": int64(1)}}}
	Status(uu)
	if _, ok := uu.Object["status"].(map[string]any)["observedGeneration"]; !ok {
		t.Error("Status changed the unstructured object's status")
	}
}

// phased has a status that is a string; wrapped, one in an embedded
// struct: Status converts them whole.
type (
	phased struct {
		metav1.TypeMeta `json:",inline"`
		Status          string `json:"status"`
	}
	inner struct {
		Status appsv1.DeploymentStatus `json:"status"`
	}
	wrapped struct {
		metav1.TypeMeta `json:",inline"`
		inner           `json:",inline"`
	}
)

func (p *phased) DeepCopyObject() runtime.Object  { c := *p; return &c }
func (w *wrapped) DeepCopyObject() runtime.Object { c := *w; return &c }

// TestSameStatus: SameStatus is true only where Status gives the same for
// both objects, and true for equal statuses of typed objects, of types
// without a status and of unstructured objects.
func TestSameStatus(t *testing.T) {
	started := metav1.NewTime(time.Date(2026, 11, 25, 22, 0, 0, 0, time.UTC))
	later := metav1.NewTime(started.Add(time.Hour))
	job := func(active int32, at *metav1.Time) *batchv1.Job {
		return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"}, Status: batchv1.JobStatus{Active: active, StartTime: at}}
	}
	u := func(replicas int64) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"kind": "Widget", "status": map[string]any{"replicas": replicas}}}
	}
	for _, tt := range []struct {
		name      string
		a, b      runtime.Object
		same      bool // SameStatus must say so
		mayDiffer bool // SameStatus may be false though Status is equal
	}{
		{name: "equal typed", a: job(1, &started), b: job(1, &started), same: true},
		{name: "other count", a: job(1, &started), b: job(2, &started)},
		{name: "other time: masked by Status, not by SameStatus", a: job(1, &started), b: job(1, &later), mayDiffer: true},
		{name: "no status field", a: &corev1.ConfigMap{Data: map[string]string{"a": "b"}}, b: &corev1.ConfigMap{}, same: true},
		{name: "equal unstructured", a: u(2), b: u(2), same: true},
		{name: "other unstructured", a: u(2), b: u(3)},
		{name: "other types", a: job(0, nil), b: &appsv1.Deployment{}},
		{name: "status in an embedded struct", a: &wrapped{}, b: &wrapped{}, mayDiffer: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := SameStatus(tt.a, tt.b)
			statusEqual := reflect.DeepEqual(Status(tt.a), Status(tt.b))
			if got && !statusEqual {
				t.Fatalf("SameStatus = true, but Status differs: %v, %v", Status(tt.a), Status(tt.b))
			}
			if got != tt.same && !(tt.mayDiffer && !got) {
				t.Errorf("SameStatus = %v, want %v", got, tt.same)
			}
		})
	}
}
