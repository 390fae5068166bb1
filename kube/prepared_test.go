package kube_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
)

// The objects the model stores are those kube-apiserver's registry
// strategies prepare (issue 34, item 3): for each kind, a create that
// carries a status (which the create strategy resets), an update of the
// spec, a label and an annotation (generation) that also sends a status
// (which the strategy drops), an update of the status
// that also changes the spec, a label and an annotation (which the status
// strategy resets or keeps), on the model with
// kube.Server(); every write's object is compared with what the kind's
// strategy prepares of it (kube.Prepared: PrepareForCreate, or
// PrepareForUpdate after the store's rules). A difference is a rule of
// the model that is not the server's: fix it in internal/apiserver, or
// list it in known with the reason.
func TestModelPreparesAsTheStrategies(t *testing.T) {
	labels := map[string]string{"app": "x"}
	template := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "c", Image: "app:1"}}},
	}
	always := template.DeepCopy()
	always.Spec.RestartPolicy = corev1.RestartPolicyAlways
	meta := metav1.ObjectMeta{Name: "x", Namespace: "default", Labels: labels}
	gated := &corev1.Pod{ObjectMeta: meta, Spec: *template.Spec.DeepCopy(), Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	gated.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/gate"}}
	for _, tc := range []struct {
		gvr    schema.GroupVersionResource
		obj    runtime.Object
		spec   func(u *unstructured.Unstructured) // a change of the spec
		status func(u *unstructured.Unstructured) // a change of the status; nil: no status subresource
		// cluster: a cluster-scoped kind.
		cluster bool
		// known: the steps whose difference is declared, with the reason.
		known map[string]string
	}{{
		gvr: appsv1.SchemeGroupVersion.WithResource("deployments"),
		obj: &appsv1.Deployment{ObjectMeta: meta, Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: *always},
			Status: appsv1.DeploymentStatus{Replicas: 1}},
		spec:   set(int64(3), "spec", "replicas"),
		status: set(int64(2), "status", "replicas"),
	}, {
		gvr: appsv1.SchemeGroupVersion.WithResource("statefulsets"),
		obj: &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: *always},
			Status: appsv1.StatefulSetStatus{Replicas: 1}},
		spec:   set(int64(3), "spec", "replicas"),
		status: set(int64(2), "status", "replicas"),
	}, {
		gvr: appsv1.SchemeGroupVersion.WithResource("daemonsets"),
		obj: &appsv1.DaemonSet{ObjectMeta: meta, Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: *always},
			Status: appsv1.DaemonSetStatus{CurrentNumberScheduled: 1}},
		spec:   set("app:2", "spec", "template", "spec", "containers", "0", "image"),
		status: set(int64(2), "status", "currentNumberScheduled"),
	}, {
		gvr: appsv1.SchemeGroupVersion.WithResource("replicasets"),
		obj: &appsv1.ReplicaSet{ObjectMeta: meta, Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: *always},
			Status: appsv1.ReplicaSetStatus{Replicas: 1}},
		spec:   set(int64(3), "spec", "replicas"),
		status: set(int64(2), "status", "replicas"),
	}, {
		gvr:    batchv1.SchemeGroupVersion.WithResource("jobs"),
		obj:    &batchv1.Job{ObjectMeta: meta, Spec: batchv1.JobSpec{Template: template}, Status: batchv1.JobStatus{Active: 1}},
		spec:   set(int64(2), "spec", "parallelism"),
		status: set(int64(2), "status", "active"),
	}, {
		gvr: batchv1.SchemeGroupVersion.WithResource("cronjobs"),
		obj: &batchv1.CronJob{ObjectMeta: meta, Spec: batchv1.CronJobSpec{Schedule: "*/5 * * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: template}}},
			Status: batchv1.CronJobStatus{LastScheduleTime: ptr.To(metav1.Date(2026, 1, 1, 0, 0, 0, 0, nowUTC))}},
		spec:   set("*/10 * * * *", "spec", "schedule"),
		status: set("2026-01-02T00:00:00Z", "status", "lastSuccessfulTime"),
	}, {
		gvr:    corev1.SchemeGroupVersion.WithResource("pods"),
		obj:    gated,
		spec:   set("app:2", "spec", "containers", "0", "image"),
		status: set("Pending", "status", "phase"),
	}, {
		gvr: corev1.SchemeGroupVersion.WithResource("services"),
		obj: &corev1.Service{ObjectMeta: meta, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: labels, Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}},
			Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{{IP: "192.0.2.1"}}}}},
		spec:   set(map[string]any{"app": "y"}, "spec", "selector"),
		status: set([]any{map[string]any{"ip": "192.0.2.2"}}, "status", "loadBalancer", "ingress"),
	}, {
		gvr: corev1.SchemeGroupVersion.WithResource("persistentvolumeclaims"),
		obj: &corev1.PersistentVolumeClaim{ObjectMeta: meta, Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: mustQuantity("1Gi")}}},
			Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}},
		spec:   func(*unstructured.Unstructured) {}, // a claim that is not bound may not change its spec
		status: set("Lost", "status", "phase"),
	}, {
		gvr: corev1.SchemeGroupVersion.WithResource("replicationcontrollers"),
		obj: &corev1.ReplicationController{ObjectMeta: meta, Spec: corev1.ReplicationControllerSpec{Selector: labels, Template: always},
			Status: corev1.ReplicationControllerStatus{Replicas: 1}},
		spec:   set(int64(3), "spec", "replicas"),
		status: set(int64(2), "status", "replicas"),
	}, {
		gvr: policyv1.SchemeGroupVersion.WithResource("poddisruptionbudgets"),
		obj: &policyv1.PodDisruptionBudget{ObjectMeta: meta, Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, MinAvailable: ptr.To(intstr.FromInt32(1))},
			Status: policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 1}},
		spec:   set(int64(2), "spec", "minAvailable"),
		status: set(int64(2), "status", "currentHealthy"),
	}, {
		gvr: networkingv1.SchemeGroupVersion.WithResource("ingresses"),
		obj: &networkingv1.Ingress{ObjectMeta: meta, Spec: networkingv1.IngressSpec{DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}},
			Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "192.0.2.1"}}}}},
		spec:   set("api", "spec", "defaultBackend", "service", "name"),
		status: set([]any{map[string]any{"ip": "192.0.2.2"}}, "status", "loadBalancer", "ingress"),
	}, {
		gvr:     corev1.SchemeGroupVersion.WithResource("namespaces"),
		cluster: true,
		obj:     &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "x", Labels: labels}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}},
		spec:    func(*unstructured.Unstructured) {},
		status:  set([]any{map[string]any{"type": "NamespaceDeletionDiscoveryFailure", "status": "False"}}, "status", "conditions"),
	}, {
		gvr:     corev1.SchemeGroupVersion.WithResource("nodes"),
		cluster: true,
		obj: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "x", Labels: labels}, Spec: corev1.NodeSpec{PodCIDR: "10.0.0.0/24", PodCIDRs: []string{"10.0.0.0/24"}},
			Status: corev1.NodeStatus{Phase: corev1.NodeRunning}},
		spec:   set(true, "spec", "unschedulable"),
		status: set([]any{map[string]any{"type": "InternalIP", "address": "192.0.2.5"}}, "status", "addresses"),
	}, {
		gvr:     corev1.SchemeGroupVersion.WithResource("persistentvolumes"),
		cluster: true,
		obj: &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "x", Labels: labels}, Spec: corev1.PersistentVolumeSpec{
			Capacity: corev1.ResourceList{corev1.ResourceStorage: mustQuantity("1Gi")}, AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}}},
			Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound}},
		spec:   set("Retain", "spec", "persistentVolumeReclaimPolicy"),
		status: set("Released", "status", "phase"),
	}, {
		gvr: corev1.SchemeGroupVersion.WithResource("resourcequotas"),
		obj: &corev1.ResourceQuota{ObjectMeta: meta, Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: mustQuantity("10")}},
			Status: corev1.ResourceQuotaStatus{Used: corev1.ResourceList{corev1.ResourcePods: mustQuantity("1")}}},
		spec:   set("20", "spec", "hard", "pods"),
		status: set(map[string]any{"pods": "2"}, "status", "used"),
	}, {
		gvr: autoscalingv2.SchemeGroupVersion.WithResource("horizontalpodautoscalers"),
		obj: &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: meta, Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}, MaxReplicas: 5},
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 1}},
		spec:   set(int64(6), "spec", "maxReplicas"),
		status: set(int64(2), "status", "desiredReplicas"),
	}, {
		gvr:  corev1.SchemeGroupVersion.WithResource("configmaps"),
		obj:  &corev1.ConfigMap{ObjectMeta: meta, Data: map[string]string{"k": "v"}},
		spec: set("w", "data", "k"),
	}, {
		gvr:  corev1.SchemeGroupVersion.WithResource("secrets"),
		obj:  &corev1.Secret{ObjectMeta: meta, StringData: map[string]string{"k": "v"}},
		spec: set("dw==", "data", "k"),
	}, {
		gvr:  corev1.SchemeGroupVersion.WithResource("serviceaccounts"),
		obj:  &corev1.ServiceAccount{ObjectMeta: meta},
		spec: set(true, "automountServiceAccountToken"),
	}, {
		gvr:  corev1.SchemeGroupVersion.WithResource("podtemplates"),
		obj:  &corev1.PodTemplate{ObjectMeta: meta, Template: *always},
		spec: set("app:2", "template", "spec", "containers", "0", "image"),
	}, {
		gvr:  coordinationv1.SchemeGroupVersion.WithResource("leases"),
		obj:  &coordinationv1.Lease{ObjectMeta: meta, Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("a")}},
		spec: set("b", "spec", "holderIdentity"),
	}, {
		gvr:  networkingv1.SchemeGroupVersion.WithResource("networkpolicies"),
		obj:  &networkingv1.NetworkPolicy{ObjectMeta: meta, Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: labels}}},
		spec: set([]any{"Ingress"}, "spec", "policyTypes"),
	}, {
		gvr: discoveryv1.SchemeGroupVersion.WithResource("endpointslices"),
		obj: &discoveryv1.EndpointSlice{ObjectMeta: meta, AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}}},
		spec: set([]any{map[string]any{"addresses": []any{"10.0.0.2"}}}, "endpoints"),
	}, {
		gvr:     schedulingv1.SchemeGroupVersion.WithResource("priorityclasses"),
		cluster: true,
		obj:     &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "x", Labels: labels}, Value: 10},
		spec:    set("a description", "description"),
	}, {
		gvr:     storagev1.SchemeGroupVersion.WithResource("storageclasses"),
		cluster: true,
		obj:     &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "x", Labels: labels}, Provisioner: "example.com/p"},
		spec:    set(true, "allowVolumeExpansion"),
	}} {
		t.Run(tc.gvr.Resource, func(t *testing.T) {
			diffs := map[string][]string{}
			step := "create"
			f := fixture.New(t, kube.Server(), fixture.WithValidation(func(v fixture.Validation) field.ErrorList {
				p, err := kube.Prepared(v)
				if err != nil {
					diffs[step] = append(diffs[step], err.Error())
				} else if p != nil {
					if d := cmp.Diff(v.Object, p, preparedOptions); d != "" {
						diffs[step] = append(diffs[step], d)
					}
				}
				return nil
			}))
			content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			gvks, _, err := scheme.Scheme.ObjectKinds(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			content["apiVersion"], content["kind"] = gvks[0].GroupVersion().String(), gvks[0].Kind
			var c dynamic.ResourceInterface = f.Dynamic().Resource(tc.gvr).Namespace("default")
			key := "default/x"
			if tc.cluster {
				c, key = f.Dynamic().Resource(tc.gvr), "x"
			}
			res := fixture.Sync(f, func(ctx context.Context, _ string) error {
				u, err := c.Create(ctx, &unstructured.Unstructured{Object: content}, metav1.CreateOptions{})
				if err != nil {
					return err
				}
				step = "update"
				tc.spec(u)
				u.SetLabels(map[string]string{"app": "x", "tier": "a"})
				u.SetAnnotations(map[string]string{"note": "a"})
				if tc.status != nil {
					tc.status(u) // which the main resource's strategy drops
				}
				if u, err = c.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
					return err
				}
				if tc.status == nil {
					return nil // no status subresource
				}
				step = "update status"
				tc.status(u)
				u.SetLabels(map[string]string{"app": "x", "tier": "b"})
				u.SetAnnotations(map[string]string{"note": "b"})
				_, err = c.UpdateStatus(ctx, u, metav1.UpdateOptions{})
				return err
			}, key)
			if res.Err != nil {
				t.Fatalf("the writes: %v", res.Err)
			}
			for _, s := range []string{"create", "update", "update status"} {
				for _, d := range diffs[s] {
					if reason, ok := tc.known[s]; ok {
						t.Logf("%s: known (%s)", s, reason)
						continue
					}
					t.Errorf("%s: the model stores what kube-apiserver's strategy would prepare otherwise (-model +strategy):\n%s", s, d)
				}
			}
		})
	}
}

// set returns a function that sets the field at path to v.
func set(v any, path ...string) func(u *unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) {
		if err := setPath(u.Object, v, path); err != nil {
			panic(err)
		}
	}
}

// setPath sets obj's field at path (map keys, or list indices) to v.
func setPath(obj map[string]any, v any, path []string) error {
	var cur any = obj
	for i, p := range path {
		last := i == len(path)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[p] = v
				return nil
			}
			if _, ok := c[p]; !ok {
				c[p] = map[string]any{}
			}
			cur = c[p]
		case []any:
			n, err := strconv.Atoi(p)
			if err != nil || n >= len(c) {
				return fmt.Errorf("path %v: no item %s", path, p)
			}
			if last {
				c[n] = v
				return nil
			}
			cur = c[n]
		default:
			return fmt.Errorf("path %v: %T at %s", path, cur, p)
		}
	}
	return nil
}

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }

var nowUTC = time.UTC
