package apiserver

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// builtinResource is what the model knows of one built-in resource
// beyond the default: its registry strategy, whether it has a scale
// subresource at .spec.replicas and .status.replicas (kube-apiserver's
// ScaleREST; a ReplicationController's selector is a map) and the eviction
// subresource (pods), its etcd prefix when it is not the resource's name,
// and the field-label conversions of its kind, by version (nil:
// defaultFieldLabels). A built-in resource with no record has the default
// strategy and none of these.
type builtinResource struct {
	strategy    strategy
	scale       bool
	eviction    bool
	prefix      string
	fieldLabels map[string]*fieldLabels
}

// builtinOf returns r's record; nil for a custom resource and for a
// built-in one with no rules of its own.
func (r *Resource) builtinOf() *builtinResource {
	if r.Custom {
		return nil
	}
	return builtins[r.GVR.GroupResource()]
}

// builtins are the built-in resources whose rules differ from the
// default, one record each (see builtinResource): kube-apiserver v1.37's
// registry strategies (k8s.io/kubernetes/pkg/registry/<group>/<resource>/
// strategy.go) for the resources whose generation or status rules differ
// from the default (every built-in resource that tracks
// metadata.generation is listed, and the strategies whose
// AllowUnconditionalUpdate is false), the workloads with a scale
// subresource (ScaleREST), the pods' eviction subresource, the etcd
// prefixes of the resources not stored under their own name
// (k8s.io/kubernetes/pkg/kubeapiserver.SpecialDefaultResourcePrefixes),
// and the kinds with a field-label conversion function of their own
// (pkg/apis/<group>/<version>/conversion.go), by version.
var builtins = map[schema.GroupResource]*builtinResource{
	{Group: "apps", Resource: "deployments"}:                                               {strategy: strategy{generation: genSpecOrAnnotations, statusMeta: resetLabels}, scale: true},
	{Group: "apps", Resource: "replicasets"}:                                               {strategy: strategy{generation: genSpec}, scale: true},
	{Group: "apps", Resource: "statefulsets"}:                                              {strategy: strategy{generation: genSpec}, scale: true, fieldLabels: map[string]*fieldLabels{"v1beta1": statefulSetBetaLabels("v1beta1"), "v1beta2": statefulSetBetaLabels("v1beta2")}},
	{Group: "apps", Resource: "daemonsets"}:                                                {strategy: strategy{generation: genSpec, onCreate: daemonSetCreate, onUpdate: daemonSetUpdate, fieldsView: daemonSetFieldsView}},
	{Group: "batch", Resource: "jobs"}:                                                     {strategy: strategy{generation: genSpec, onCreate: jobCreate, gc: gcOrphan}, fieldLabels: map[string]*fieldLabels{"v1": jobLabels, "v1beta1": batchV1beta1Labels("Job")}},
	{Group: "batch", Resource: "cronjobs"}:                                                 {strategy: strategy{generation: genSpec}, fieldLabels: map[string]*fieldLabels{"v1beta1": batchV1beta1Labels("CronJob")}},
	{Resource: "pods"}:                                                                     {strategy: strategy{generation: genSpec, statusMeta: resetOwners, onCreate: podCreate, onUpdate: podUpdate}, eviction: true, fieldLabels: map[string]*fieldLabels{"v1": podLabels}},
	{Resource: "podtemplates"}:                                                             {strategy: strategy{generation: genTemplate}},
	{Resource: "replicationcontrollers"}:                                                   {strategy: strategy{generation: genSpec, gc: gcOrphan}, scale: true, prefix: "controllers", fieldLabels: map[string]*fieldLabels{"v1": replicationControllerLabels}},
	{Resource: "events"}:                                                                   {strategy: strategy{gc: gcUnsupported, createOnUpdate: true}, fieldLabels: map[string]*fieldLabels{"v1": coreEventLabels}},
	{Resource: "services"}:                                                                 {strategy: strategy{createOnUpdate: true}, prefix: "services/specs", fieldLabels: map[string]*fieldLabels{"v1": serviceLabels}},
	{Resource: "endpoints"}:                                                                {strategy: strategy{createOnUpdate: true}, prefix: "services/endpoints"},
	{Resource: "limitranges"}:                                                              {strategy: strategy{createOnUpdate: true}},
	{Group: "rbac.authorization.k8s.io", Resource: "roles"}:                                {strategy: strategy{createOnUpdate: true}},
	{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}:                         {strategy: strategy{createOnUpdate: true}},
	{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}:                         {strategy: strategy{createOnUpdate: true}},
	{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}:                  {strategy: strategy{createOnUpdate: true}},
	{Group: "events.k8s.io", Resource: "events"}:                                           {strategy: strategy{gc: gcUnsupported, createOnUpdate: true}, fieldLabels: map[string]*fieldLabels{"v1": eventsEventLabels, "v1beta1": eventsEventLabels}},
	{Resource: "namespaces"}:                                                               {strategy: strategy{onCreate: namespaceCreate}, fieldLabels: map[string]*fieldLabels{"v1": namespaceLabels}},
	{Resource: "nodes"}:                                                                    {strategy: strategy{keepStatusOnCreate: true, onCreate: nodeCreate}, prefix: "minions", fieldLabels: map[string]*fieldLabels{"v1": nodeLabels}},
	{Resource: "persistentvolumeclaims"}:                                                   {strategy: strategy{onCreate: persistentVolumeClaimCreate}},
	{Resource: "persistentvolumes"}:                                                        {strategy: strategy{onCreate: persistentVolumeCreate, onUpdate: persistentVolumeUpdate}},
	{Group: "networking.k8s.io", Resource: "ingresses"}:                                    {strategy: strategy{generation: genSpec}, prefix: "ingress"},
	{Group: "networking.k8s.io", Resource: "ingressclasses"}:                               {strategy: strategy{generation: genSpec}},
	{Group: "networking.k8s.io", Resource: "networkpolicies"}:                              {strategy: strategy{generation: genSpec}},
	{Group: "policy", Resource: "poddisruptionbudgets"}:                                    {strategy: strategy{generation: genSpec, conditionalOnly: true}},
	{Group: "autoscaling", Resource: "horizontalpodautoscalers"}:                           {strategy: strategy{generation: genSpec}},
	{Group: "scheduling.k8s.io", Resource: "priorityclasses"}:                              {strategy: strategy{generation: genCreateOnly}},
	{Group: "discovery.k8s.io", Resource: "endpointslices"}:                                {strategy: strategy{generation: genNonMetadata}},
	{Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"}:                       {strategy: strategy{generation: genSpec, statusMeta: resetAllMeta}},
	{Group: "coordination.k8s.io", Resource: "leases"}:                                     {strategy: strategy{conditionalOnly: true, createOnUpdate: true}},
	{Group: "coordination.k8s.io", Resource: "leasecandidates"}:                            {strategy: strategy{conditionalOnly: true, createOnUpdate: true}},
	{Group: "node.k8s.io", Resource: "runtimeclasses"}:                                     {strategy: strategy{conditionalOnly: true, createOnUpdate: true}},
	{Group: "storage.k8s.io", Resource: "csidrivers"}:                                      {strategy: strategy{conditionalOnly: true}},
	{Group: "storage.k8s.io", Resource: "csinodes"}:                                        {strategy: strategy{conditionalOnly: true}},
	{Group: "storage.k8s.io", Resource: "csistoragecapacities"}:                            {strategy: strategy{conditionalOnly: true}},
	{Group: "storage.k8s.io", Resource: "volumeattachments"}:                               {strategy: strategy{conditionalOnly: true}},
	{Group: "certificates.k8s.io", Resource: "clustertrustbundles"}:                        {strategy: strategy{conditionalOnly: true}, fieldLabels: map[string]*fieldLabels{"v1": signerLabels, "v1beta1": signerLabels, "v1alpha1": signerLabels}},
	{Group: "internal.apiserver.k8s.io", Resource: "storageversions"}:                      {strategy: strategy{conditionalOnly: true}},
	{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations"}:     {strategy: strategy{generation: genNonMetadata, conditionalOnly: true}},
	{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations"}:   {strategy: strategy{generation: genNonMetadata, conditionalOnly: true}},
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"}: {strategy: strategy{generation: genSpec, conditionalOnly: true}},
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicies"}:         {strategy: strategy{generation: genSpec, conditionalOnly: true}},
	{Group: "admissionregistration.k8s.io", Resource: "mutatingadmissionpolicybindings"}:   {strategy: strategy{generation: genSpec, conditionalOnly: true}},
	{Group: "flowcontrol.apiserver.k8s.io", Resource: "prioritylevelconfigurations"}:       {strategy: strategy{generation: genSpec, statusMeta: resetAllMeta}},
	{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"}:       {strategy: strategy{generation: genSpec, statusMeta: resetAllMeta, conditionalOnly: true}},
	{Group: "extensions", Resource: "deployments"}:                                         {scale: true},
	{Group: "extensions", Resource: "replicasets"}:                                         {scale: true},
	{Group: "extensions", Resource: "ingresses"}:                                           {prefix: "ingress"},
	{Resource: "secrets"}:                                                                  {fieldLabels: map[string]*fieldLabels{"v1": secretLabels}},
	{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}:                 {fieldLabels: map[string]*fieldLabels{"v1": signerLabels, "v1beta1": signerLabels}},
	{Group: "certificates.k8s.io", Resource: "podcertificaterequests"}:                     {fieldLabels: map[string]*fieldLabels{"v1": podCertificateRequestLabels, "v1beta1": podCertificateRequestLabels, "v1alpha1": podCertificateRequestLabels}},
	{Group: "resource.k8s.io", Resource: "resourceslices"}:                                 {fieldLabels: map[string]*fieldLabels{"v1": resourceSliceLabels(schema.GroupVersion{Group: "resource.k8s.io", Version: "v1"}), "v1beta1": resourceSliceLabels(schema.GroupVersion{Group: "resource.k8s.io", Version: "v1beta1"}), "v1beta2": resourceSliceLabels(schema.GroupVersion{Group: "resource.k8s.io", Version: "v1beta2"})}},
}
