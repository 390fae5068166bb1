package kube

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"

	"k8s.io/kubernetes/pkg/registry/apps/controllerrevision"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/coordination/lease"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/endpoint"
	"k8s.io/kubernetes/pkg/registry/core/event"
	"k8s.io/kubernetes/pkg/registry/core/limitrange"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	"k8s.io/kubernetes/pkg/registry/core/node"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolume"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/resourcequota"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"
	"k8s.io/kubernetes/pkg/registry/discovery/endpointslice"
	"k8s.io/kubernetes/pkg/registry/networking/ingress"
	"k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	"k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	"k8s.io/kubernetes/pkg/registry/rbac/role"
	"k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
	"k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
	"k8s.io/kubernetes/pkg/registry/storage/storageclass"
)

// strategy is a registry strategy that validates creates and updates, as
// every one of kube-apiserver's built-in resources has.
type strategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

// resource is one built-in resource as kube-apiserver's registry serves
// it: its plural, its strategy for the resource, and the strategies of
// its subresources that write the object (status, ...).
type resource struct {
	resource     string
	strategy     strategy
	subresources map[string]rest.RESTUpdateStrategy
}

// status is the subresources map of a resource whose only writing
// subresource is status.
func status(s rest.RESTUpdateStrategy) map[string]rest.RESTUpdateStrategy {
	return map[string]rest.RESTUpdateStrategy{"status": s}
}

// table maps each covered kind to its resource: the strategies
// kube-apiserver v1.37's registry uses for it
// (k8s.io/kubernetes/pkg/registry/<group>/<resource>/strategy.go, wired in
// each resource's storage package). A kind is covered in every version
// legacyscheme serves of it: the strategies work on the internal type.
func table() map[schema.GroupKind]resource {
	core := func(kind string) schema.GroupKind { return schema.GroupKind{Kind: kind} }
	gk := func(group, kind string) schema.GroupKind { return schema.GroupKind{Group: group, Kind: kind} }
	return map[schema.GroupKind]resource{
		core("Pod"): {"pods", pod.Strategy, map[string]rest.RESTUpdateStrategy{
			"status":              pod.StatusStrategy,
			"ephemeralcontainers": pod.EphemeralContainersStrategy,
			"resize":              pod.ResizeStrategy,
		}},
		core("Service"):               {"services", service.Strategy, status(service.StatusStrategy)},
		core("ConfigMap"):             {"configmaps", configmap.Strategy, nil},
		core("Secret"):                {"secrets", secret.Strategy, nil},
		core("Namespace"):             {"namespaces", namespace.Strategy, map[string]rest.RESTUpdateStrategy{"status": namespace.StatusStrategy, "finalize": namespace.FinalizeStrategy}},
		core("Node"):                  {"nodes", node.Strategy, status(node.StatusStrategy)},
		core("PersistentVolumeClaim"): {"persistentvolumeclaims", persistentvolumeclaim.Strategy, status(persistentvolumeclaim.StatusStrategy)},
		core("PersistentVolume"):      {"persistentvolumes", persistentvolume.Strategy, status(persistentvolume.StatusStrategy)},
		core("Endpoints"):             {"endpoints", endpoint.Strategy, nil},
		core("ServiceAccount"):        {"serviceaccounts", serviceaccount.Strategy, nil},
		core("Event"):                 {"events", event.Strategy, nil},
		core("ReplicationController"): {"replicationcontrollers", replicationcontroller.Strategy, status(replicationcontroller.StatusStrategy)},
		core("PodTemplate"):           {"podtemplates", podtemplate.Strategy, nil},
		core("LimitRange"):            {"limitranges", limitrange.Strategy, nil},
		core("ResourceQuota"):         {"resourcequotas", resourcequota.Strategy, status(resourcequota.StatusStrategy)},

		gk("apps", "Deployment"):         {"deployments", deployment.Strategy, status(deployment.StatusStrategy)},
		gk("apps", "ReplicaSet"):         {"replicasets", replicaset.Strategy, status(replicaset.StatusStrategy)},
		gk("apps", "StatefulSet"):        {"statefulsets", statefulset.Strategy, status(statefulset.StatusStrategy)},
		gk("apps", "DaemonSet"):          {"daemonsets", daemonset.Strategy, status(daemonset.StatusStrategy)},
		gk("apps", "ControllerRevision"): {"controllerrevisions", controllerrevision.Strategy, nil},

		gk("batch", "Job"):     {"jobs", job.Strategy, status(job.StatusStrategy)},
		gk("batch", "CronJob"): {"cronjobs", cronjob.Strategy, status(cronjob.StatusStrategy)},

		gk("policy", "PodDisruptionBudget"): {"poddisruptionbudgets", poddisruptionbudget.Strategy, status(poddisruptionbudget.StatusStrategy)},

		gk("coordination.k8s.io", "Lease"): {"leases", lease.Strategy, nil},

		gk("rbac.authorization.k8s.io", "Role"):               {"roles", role.Strategy, nil},
		gk("rbac.authorization.k8s.io", "RoleBinding"):        {"rolebindings", rolebinding.Strategy, nil},
		gk("rbac.authorization.k8s.io", "ClusterRole"):        {"clusterroles", clusterrole.Strategy, nil},
		gk("rbac.authorization.k8s.io", "ClusterRoleBinding"): {"clusterrolebindings", clusterrolebinding.Strategy, nil},

		gk("networking.k8s.io", "Ingress"):       {"ingresses", ingress.Strategy, status(ingress.StatusStrategy)},
		gk("networking.k8s.io", "IngressClass"):  {"ingressclasses", ingressclass.Strategy, nil},
		gk("networking.k8s.io", "NetworkPolicy"): {"networkpolicies", networkpolicy.Strategy, nil},

		gk("discovery.k8s.io", "EndpointSlice"): {"endpointslices", endpointslice.Strategy, nil},

		// events.k8s.io's Events are core Events, stored by the same
		// registry (pkg/registry/events/rest).
		gk("events.k8s.io", "Event"): {"events", event.Strategy, nil},

		gk("autoscaling", "HorizontalPodAutoscaler"): {"horizontalpodautoscalers", horizontalpodautoscaler.Strategy, status(horizontalpodautoscaler.StatusStrategy)},

		gk("scheduling.k8s.io", "PriorityClass"): {"priorityclasses", priorityclass.Strategy, nil},

		gk("storage.k8s.io", "StorageClass"): {"storageclasses", storageclass.Strategy, nil},
	}
}
