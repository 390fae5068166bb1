package kcm

import (
	"github.com/ctrltest/ctrltest/fixture"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// admit returns a copy of pod as kube-apiserver holds a created pod: with
// the tolerations of its DefaultTolerationSeconds admission (unless it has
// its own), the priority and preemption policy of its Priority admission,
// and, for a pod whose containers request and limit nothing, the QoS class
// BestEffort of the pod strategy. The fixture's model gives the same to a
// pod a controller creates (internal/apiserver's admitPod); a row's seeds
// are the world as the row writes it, so rows that compare with
// kube-apiserver (parity_test.go) seed pods admitted.
func admit(pod *corev1.Pod) *corev1.Pod {
	pod = pod.DeepCopy()
	if len(pod.Spec.Tolerations) == 0 {
		for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
			pod.Spec.Tolerations = append(pod.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)})
		}
	}
	if pod.Spec.PriorityClassName == "" && pod.Spec.Priority == nil {
		pod.Spec.Priority = ptr.To[int32](0)
	}
	if pod.Spec.PreemptionPolicy == nil {
		pod.Spec.PreemptionPolicy = ptr.To(corev1.PreemptLowerPriority)
	}
	bestEffort := true
	for _, c := range pod.Spec.Containers {
		bestEffort = bestEffort && len(c.Resources.Requests) == 0 && len(c.Resources.Limits) == 0
	}
	if bestEffort && pod.Status.QOSClass == "" {
		pod.Status.QOSClass = corev1.PodQOSBestEffort
	}
	return pod
}

// admitted returns objs with every Pod admitted (see admit).
func admitted(objs []runtime.Object) []runtime.Object {
	out := make([]runtime.Object, len(objs))
	for i, o := range objs {
		if pod, ok := o.(*corev1.Pod); ok {
			o = admit(pod)
		}
		out[i] = o
	}
	return out
}

// admittedRows returns rows with their seeds admitted (see admitted).
func admittedRows(rows []fixture.Row) []fixture.Row {
	for i := range rows {
		rows[i].Objects = admitted(rows[i].Objects)
	}
	return rows
}
