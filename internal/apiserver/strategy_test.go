package apiserver

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

func TestQOSClass(t *testing.T) {
	res := func(req, lim string) corev1.ResourceRequirements {
		r := corev1.ResourceRequirements{}
		if req != "" {
			r.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(req), corev1.ResourceMemory: resource.MustParse(req)}
		}
		if lim != "" {
			r.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(lim), corev1.ResourceMemory: resource.MustParse(lim)}
		}
		return r
	}
	for _, tc := range []struct {
		name       string
		containers []corev1.ResourceRequirements
		want       corev1.PodQOSClass
	}{
		{"nothing", []corev1.ResourceRequirements{{}}, corev1.PodQOSBestEffort},
		{"requests only", []corev1.ResourceRequirements{res("1", "")}, corev1.PodQOSBurstable},
		{"limits equal requests", []corev1.ResourceRequirements{res("1", "1")}, corev1.PodQOSGuaranteed},
		{"limits only (requests default to them)", []corev1.ResourceRequirements{res("", "1")}, corev1.PodQOSGuaranteed},
		{"limits above requests", []corev1.ResourceRequirements{res("1", "2")}, corev1.PodQOSBurstable},
		{"one container without", []corev1.ResourceRequirements{res("1", "1"), {}}, corev1.PodQOSBurstable},
	} {
		pod := &corev1.Pod{}
		for _, c := range tc.containers {
			pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Resources: c})
		}
		if got := qosClass(pod); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestCreateStrategies(t *testing.T) {
	pod := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning, Message: "set by the client"}}
	podCreate(pod, metav1.Time{})
	if pod.Status.Phase != corev1.PodPending || pod.Status.Message != "" || pod.Status.QOSClass != corev1.PodQOSBestEffort {
		t.Errorf("pod status on create: %+v", pod.Status)
	}
	// A pod with scheduling gates: the condition the Pod strategy's
	// PrepareForCreate adds (applySchedulingGatedCondition), stamped with
	// the create's time; found by kube's TestModelPreparesAsTheStrategies.
	now := metav1.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	gated := &corev1.Pod{Spec: corev1.PodSpec{SchedulingGates: []corev1.PodSchedulingGate{{Name: "example.com/gate"}}},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	podCreate(gated, now)
	wantConditions := []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, LastTransitionTime: now,
		Reason: corev1.PodReasonSchedulingGated, Message: "Scheduling is blocked due to non-empty scheduling gates"}}
	if diff := cmp.Diff(wantConditions, gated.Status.Conditions); diff != "" {
		t.Errorf("a gated pod's conditions on create (-want +got):\n%s", diff)
	}
	// A PersistentVolume starts Pending, stamped (PrepareForCreate); a
	// status write that changes the phase is stamped with its time, one
	// that keeps it keeps the stored time (found by kube's
	// TestModelPreparesAsTheStrategies).
	pv := &corev1.PersistentVolume{Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound}}
	persistentVolumeCreate(pv, now)
	if want := (corev1.PersistentVolumeStatus{Phase: corev1.VolumePending, LastPhaseTransitionTime: &now}); !reflect.DeepEqual(pv.Status, want) {
		t.Errorf("a PersistentVolume's status on create: %+v; want %+v", pv.Status, want)
	}
	later := metav1.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	bound := pv.DeepCopy()
	bound.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound}
	persistentVolumeUpdate("status", bound, pv, later)
	if got := bound.Status.LastPhaseTransitionTime; got == nil || !got.Equal(&later) {
		t.Errorf("a PersistentVolume's phase changed: transition time %v; want %v", got, later)
	}
	same := bound.DeepCopy()
	same.Status.LastPhaseTransitionTime, same.Status.Message = nil, "m"
	persistentVolumeUpdate("status", same, bound, metav1.Date(2026, 1, 1, 0, 2, 0, 0, time.UTC))
	if got := same.Status.LastPhaseTransitionTime; got == nil || !got.Equal(&later) {
		t.Errorf("a PersistentVolume's phase kept: transition time %v; want the stored %v", got, later)
	}
	if got := pv.Finalizers; !reflect.DeepEqual(got, []string{"kubernetes.io/pv-protection"}) {
		t.Errorf("a created PersistentVolume's finalizers: %v; want StorageObjectInUseProtection's", got)
	}
	// StorageObjectInUseProtection and TaintNodesByCondition, on create:
	// once, whatever the object carries already.
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Finalizers: []string{"a/b"}}}
	persistentVolumeClaimCreate(pvc, now)
	persistentVolumeClaimCreate(pvc, now)
	if got := pvc.Finalizers; !reflect.DeepEqual(got, []string{"a/b", "kubernetes.io/pvc-protection"}) {
		t.Errorf("a created claim's finalizers: %v", got)
	}
	node := &corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "k", Value: "v", Effect: corev1.TaintEffectNoExecute}}}}
	nodeCreate(node, now)
	nodeCreate(node, now)
	wantTaints := []corev1.Taint{{Key: "k", Value: "v", Effect: corev1.TaintEffectNoExecute}, {Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}}
	if diff := cmp.Diff(wantTaints, node.Spec.Taints); diff != "" {
		t.Errorf("a created node's taints (-want +got):\n%s", diff)
	}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", UID: "u"}}
	jobCreate(job, metav1.Time{})
	if job.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] != "u" || job.Spec.Template.Labels["job-name"] != "j" ||
		job.Spec.Template.Labels[batchv1.JobNameLabel] != "j" || job.Spec.Template.Labels["controller-uid"] != "u" {
		t.Errorf("job selector and labels: %+v %+v", job.Spec.Selector, job.Spec.Template.Labels)
	}
	manual := &batchv1.Job{Spec: batchv1.JobSpec{ManualSelector: func() *bool { b := true; return &b }()}}
	jobCreate(manual, metav1.Time{})
	if manual.Spec.Selector != nil {
		t.Errorf("a manual selector was changed: %+v", manual.Spec.Selector)
	}
	ns := &corev1.Namespace{}
	namespaceCreate(ns, metav1.Time{})
	namespaceCreate(ns, metav1.Time{})
	if ns.Status.Phase != corev1.NamespaceActive || len(ns.Spec.Finalizers) != 1 || ns.Spec.Finalizers[0] != corev1.FinalizerKubernetes {
		t.Errorf("namespace on create: %+v", ns)
	}
}

func TestSeedUID(t *testing.T) {
	gk := schema.GroupKind{Group: "apps", Kind: "Deployment"}
	a, b := SeedUID(gk, "default", "web"), SeedUID(gk, "default", "web")
	if a != b || a == SeedUID(gk, "other", "web") || a == SeedUID(schema.GroupKind{Kind: "Deployment"}, "default", "web") {
		t.Errorf("SeedUID is not a function of kind, namespace and name: %s %s", a, b)
	}
	if len(a) != 36 || a[14] != '4' {
		t.Errorf("SeedUID %q is not laid out as the server's uids", a)
	}
}

// TestAdmitPod: a created pod gets what DefaultTolerationSeconds and
// Priority admission give it on kube-apiserver (parity's StatefulSet, Job,
// DaemonSet and ReplicaSet tables saw them on every created pod).
func TestAdmitPod(t *testing.T) {
	notReady := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
	unreachable := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
	own := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}
	all := corev1.Toleration{Operator: corev1.TolerationOpExists}
	schedule := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	for _, tc := range []struct {
		name      string
		spec      corev1.PodSpec
		want      []corev1.Toleration
		priority  *int32
		preemptBy *corev1.PreemptionPolicy
	}{
		{"a bare pod", corev1.PodSpec{}, []corev1.Toleration{notReady, unreachable}, ptr.To[int32](0), ptr.To(corev1.PreemptLowerPriority)},
		{"its own not-ready toleration", corev1.PodSpec{Tolerations: []corev1.Toleration{own}}, []corev1.Toleration{own, unreachable}, ptr.To[int32](0), ptr.To(corev1.PreemptLowerPriority)},
		{"tolerates every taint", corev1.PodSpec{Tolerations: []corev1.Toleration{all}}, []corev1.Toleration{all}, ptr.To[int32](0), ptr.To(corev1.PreemptLowerPriority)},
		{"a NoSchedule toleration is not NoExecute", corev1.PodSpec{Tolerations: []corev1.Toleration{schedule}}, []corev1.Toleration{schedule, notReady, unreachable}, ptr.To[int32](0), ptr.To(corev1.PreemptLowerPriority)},
		{"system-node-critical", corev1.PodSpec{PriorityClassName: "system-node-critical"}, []corev1.Toleration{notReady, unreachable}, ptr.To[int32](2_000_001_000), ptr.To(corev1.PreemptLowerPriority)},
		// kube-apiserver forbids it; the model keeps it (admitPod).
		{"its own preemption policy", corev1.PodSpec{PreemptionPolicy: ptr.To(corev1.PreemptNever)}, []corev1.Toleration{notReady, unreachable}, ptr.To[int32](0), ptr.To(corev1.PreemptNever)},
		{"a class the model does not look up", corev1.PodSpec{PriorityClassName: "high"}, []corev1.Toleration{notReady, unreachable}, nil, nil},
	} {
		pod := &corev1.Pod{Spec: tc.spec}
		podCreate(pod, metav1.Time{})
		if d := cmp.Diff(tc.want, pod.Spec.Tolerations); d != "" {
			t.Errorf("%s: tolerations (-want +got):\n%s", tc.name, d)
		}
		if !reflect.DeepEqual(pod.Spec.Priority, tc.priority) || !reflect.DeepEqual(pod.Spec.PreemptionPolicy, tc.preemptBy) {
			t.Errorf("%s: priority %v, preemption policy %v; want %v, %v", tc.name, ptr.Deref(pod.Spec.Priority, -1), pod.Spec.PreemptionPolicy, ptr.Deref(tc.priority, -1), tc.preemptBy)
		}
	}
}

// A DaemonSet's template converts alone as it does inside the whole
// object: templateOf converts only the template.
func TestTemplateOfConvertsAsTheWholeObject(t *testing.T) {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "ds", Namespace: "default"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}, CreationTimestamp: metav1.Now()},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "c", Image: "i", Args: []string{},
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
			}}},
		}},
	}
	whole, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ds)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := unstructured.NestedFieldNoCopy(whole, "spec", "template")
	if diff := cmp.Diff(want, templateOf(ds)); diff != "" {
		t.Errorf("templateOf (-whole object's +alone):\n%s", diff)
	}
	u := &unstructured.Unstructured{Object: whole}
	if diff := cmp.Diff(want, templateOf(u)); diff != "" {
		t.Errorf("templateOf, unstructured (-want +got):\n%s", diff)
	}
}
