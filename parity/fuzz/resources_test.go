package fuzz

import (
	"encoding/base64"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// resource is a type the fuzzer writes: how to make a valid object of it,
// and the fields its requests change.
type resource struct {
	kind string
	gvr  schema.GroupVersionResource
	// object returns a valid object named name, as JSON.
	object func(name string) map[string]any
	// spec is a field the server lets change to any of its values (nil:
	// the resource has none the fuzzer writes); status, one of the status,
	// nil when the resource has no status subresource.
	spec, status *field
	// template is the path of the pod template's annotations, for
	// resources with a pod template the server lets change.
	template []string
	// scale: the resource serves /scale.
	scale bool
	// evict: Pods, whose eviction the fuzzer requests.
	evict bool
	// custom: a custom resource.
	custom bool
	// selectable is a field selector the resource's lists accept beside
	// metadata.name ("" for none), with a value %d.
	selectable string
}

// field is a field of an object by its JSON path, and its i-th value.
type field struct {
	path  []string
	value func(i int) any
}

// customKinds are the kinds of the custom resources.
var customKinds = map[string]bool{"Foo": true, "Gateway": true, "Widget": true}

func labels() map[string]any { return map[string]any{"app": "fuzz"} }

func meta(name string) map[string]any {
	return map[string]any{"name": name, "labels": labels()}
}

func podSpec() map[string]any {
	return map[string]any{"containers": []any{map[string]any{"name": "c", "image": "registry.invalid/c:1"}}}
}

func template() map[string]any {
	return map[string]any{"metadata": map[string]any{"labels": labels()}, "spec": podSpec()}
}

func selector() map[string]any { return map[string]any{"matchLabels": labels()} }

func ints(i int) any { return int64(i) }

func strs(prefix string) func(int) any {
	return func(i int) any { return fmt.Sprintf("%s%d", prefix, i) }
}

var (
	observedGeneration = &field{path: []string{"status", "observedGeneration"}, value: ints}
	minReadySeconds    = &field{path: []string{"spec", "minReadySeconds"}, value: ints}
	templateNotes      = []string{"spec", "template", "metadata", "annotations"}
)

func obj(apiVersion, kind, name string, fields map[string]any) map[string]any {
	out := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta(name)}
	for k, v := range fields {
		out[k] = v
	}
	return out
}

// resources are the types the fuzzer covers: 15 built-in, 3 custom. The
// objects set what the server would default where a request changes it
// (replicas, which the scale subresource writes): the model applies no
// defaults of its own (fixture.WithDefaulting brings them).
var resources = []resource{{
	kind: "Deployment", gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
	object: func(name string) map[string]any {
		return obj("apps/v1", "Deployment", name, map[string]any{"spec": map[string]any{"replicas": int64(1), "selector": selector(), "template": template()}})
	},
	spec: minReadySeconds, status: observedGeneration, template: templateNotes, scale: true,
}, {
	kind: "ReplicaSet", gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"},
	object: func(name string) map[string]any {
		return obj("apps/v1", "ReplicaSet", name, map[string]any{"spec": map[string]any{"replicas": int64(1), "selector": selector(), "template": template()}})
	},
	spec: minReadySeconds, status: observedGeneration, template: templateNotes, scale: true,
}, {
	kind: "StatefulSet", gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"},
	object: func(name string) map[string]any {
		return obj("apps/v1", "StatefulSet", name, map[string]any{"spec": map[string]any{"replicas": int64(1), "selector": selector(), "template": template()}})
	},
	spec: minReadySeconds, status: observedGeneration, template: templateNotes, scale: true,
}, {
	kind: "DaemonSet", gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"},
	object: func(name string) map[string]any {
		return obj("apps/v1", "DaemonSet", name, map[string]any{"spec": map[string]any{"selector": selector(), "template": template()}})
	},
	spec: minReadySeconds, status: observedGeneration, template: templateNotes,
}, {
	kind: "ReplicationController", gvr: schema.GroupVersionResource{Version: "v1", Resource: "replicationcontrollers"},
	object: func(name string) map[string]any {
		return obj("v1", "ReplicationController", name, map[string]any{"spec": map[string]any{"replicas": int64(1), "selector": labels(), "template": template()}})
	},
	spec: minReadySeconds, status: observedGeneration, template: templateNotes, scale: true,
}, {
	kind: "Job", gvr: schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"},
	object: func(name string) map[string]any {
		tpl := template()
		tpl["spec"].(map[string]any)["restartPolicy"] = "Never"
		return obj("batch/v1", "Job", name, map[string]any{"spec": map[string]any{"parallelism": int64(1), "template": tpl}})
	},
	spec:   &field{path: []string{"spec", "parallelism"}, value: func(i int) any { return int64(i%5 + 1) }},
	status: &field{path: []string{"status", "active"}, value: ints},
}, {
	kind: "CronJob", gvr: schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "cronjobs"},
	object: func(name string) map[string]any {
		tpl := template()
		tpl["spec"].(map[string]any)["restartPolicy"] = "Never"
		return obj("batch/v1", "CronJob", name, map[string]any{"spec": map[string]any{
			"schedule": "*/5 * * * *", "jobTemplate": map[string]any{"spec": map[string]any{"template": tpl}},
		}})
	},
	spec:   &field{path: []string{"spec", "startingDeadlineSeconds"}, value: func(i int) any { return int64(i + 10) }},
	status: &field{path: []string{"status", "lastScheduleTime"}, value: func(i int) any { return fmt.Sprintf("2020-01-01T00:00:%02dZ", i%60) }},
}, {
	kind: "Pod", gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
	object: func(name string) map[string]any {
		return obj("v1", "Pod", name, map[string]any{"spec": podSpec()})
	},
	// A Pod's active deadline may be set, then only lowered: the values
	// fall as the sequence goes.
	spec:   &field{path: []string{"spec", "activeDeadlineSeconds"}, value: func(i int) any { return int64(1000 - i) }},
	status: &field{path: []string{"status", "message"}, value: strs("m")},
	evict:  true, selectable: "spec.nodeName=n%d",
}, {
	kind: "Service", gvr: schema.GroupVersionResource{Version: "v1", Resource: "services"},
	object: func(name string) map[string]any {
		return obj("v1", "Service", name, map[string]any{"spec": map[string]any{
			"type": "LoadBalancer", "selector": labels(),
			"ports": []any{map[string]any{"port": int64(80), "targetPort": int64(8080)}},
		}})
	},
	spec: &field{path: []string{"spec", "selector", "tier"}, value: strs("t")},
	status: &field{path: []string{"status", "loadBalancer"}, value: func(i int) any {
		return map[string]any{"ingress": []any{map[string]any{"hostname": fmt.Sprintf("h%d.example", i)}}}
	}},
}, {
	kind: "ConfigMap", gvr: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"},
	object: func(name string) map[string]any {
		return obj("v1", "ConfigMap", name, map[string]any{"data": map[string]any{"k": "v0"}})
	},
	spec: &field{path: []string{"data", "k"}, value: strs("v")},
}, {
	kind: "Secret", gvr: schema.GroupVersionResource{Version: "v1", Resource: "secrets"},
	object: func(name string) map[string]any {
		return obj("v1", "Secret", name, map[string]any{"data": map[string]any{"k": base64.StdEncoding.EncodeToString([]byte("v0"))}})
	},
	spec: &field{path: []string{"data", "k"}, value: func(i int) any {
		return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "v%d", i))
	}},
	selectable: "type=t%d",
}, {
	kind: "ServiceAccount", gvr: schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"},
	object: func(name string) map[string]any { return obj("v1", "ServiceAccount", name, nil) },
	spec:   &field{path: []string{"automountServiceAccountToken"}, value: func(i int) any { return i%2 == 0 }},
}, {
	kind: "PodDisruptionBudget", gvr: schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"},
	object: func(name string) map[string]any {
		return obj("policy/v1", "PodDisruptionBudget", name, map[string]any{"spec": map[string]any{"selector": selector(), "minAvailable": int64(1)}})
	},
	spec:   &field{path: []string{"spec", "minAvailable"}, value: ints},
	status: observedGeneration,
}, {
	kind: "NetworkPolicy", gvr: schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies"},
	object: func(name string) map[string]any {
		return obj("networking.k8s.io/v1", "NetworkPolicy", name, map[string]any{"spec": map[string]any{"podSelector": selector()}})
	},
	spec: &field{path: []string{"spec", "podSelector", "matchLabels", "tier"}, value: strs("t")},
}, {
	kind: "Lease", gvr: schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"},
	object: func(name string) map[string]any {
		return obj("coordination.k8s.io/v1", "Lease", name, map[string]any{"spec": map[string]any{"holderIdentity": "h0"}})
	},
	spec: &field{path: []string{"spec", "holderIdentity"}, value: strs("h")},
}, {
	kind: "Foo", custom: true, gvr: schema.GroupVersionResource{Group: "samplecontroller.ctrltest.dev", Version: "v1alpha1", Resource: "foos"},
	object: func(name string) map[string]any {
		return obj("samplecontroller.ctrltest.dev/v1alpha1", "Foo", name, map[string]any{"spec": map[string]any{"deploymentName": "d0"}})
	},
	spec:   &field{path: []string{"spec", "deploymentName"}, value: strs("d")},
	status: &field{path: []string{"status", "availableReplicas"}, value: ints},
}, {
	kind: "Gateway", custom: true, gvr: schema.GroupVersionResource{Group: "gateway.ctrltest.dev", Version: "v1alpha1", Resource: "gateways"},
	object: func(name string) map[string]any {
		return obj("gateway.ctrltest.dev/v1alpha1", "Gateway", name, map[string]any{"spec": map[string]any{"className": "c0"}})
	},
	spec: &field{path: []string{"spec", "className"}, value: strs("c")},
}, {
	kind: "Widget", custom: true, gvr: schema.GroupVersionResource{Group: "crd.ctrltest.dev", Version: "v1", Resource: "widgets"},
	object: func(name string) map[string]any {
		return obj("crd.ctrltest.dev/v1", "Widget", name, map[string]any{"spec": map[string]any{"color": "red", "size": int64(1)}})
	},
	// Sizes up to 5 (the schema's maximum): a blue widget above 3 breaks
	// the CEL rule, which both sides must refuse alike.
	spec:   &field{path: []string{"spec", "size"}, value: func(i int) any { return int64(i % 6) }},
	status: &field{path: []string{"status", "seen"}, value: strs("s")},
	scale:  true, selectable: "spec.color=red",
}}
