package apiserver

import (
	"reflect"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// generation says when a resource's metadata.generation changes, as its
// registry strategy's PrepareForCreate and PrepareForUpdate say.
type generation int

const (
	// genNone: the strategy never sets it; a create keeps what the client
	// sent and an update keeps the stored value (rest.BeforeUpdate).
	genNone generation = iota
	// genSpec: 1 on create, +1 when the spec changes.
	genSpec
	// genSpecOrAnnotations: as genSpec, and +1 when the annotations change
	// (Deployments: annotations are copied to their ReplicaSets).
	genSpecOrAnnotations
	// genTemplate: as genSpec for PodTemplates, whose spec is .template.
	genTemplate
	// genCreateOnly: 1 on create, never bumped (the spec is immutable).
	genCreateOnly
	// genNonMetadata: 1 on create, +1 when anything outside metadata
	// changes (status too unless the resource has a status subresource):
	// custom resources and endpoint slices.
	genNonMetadata
)

// statusMeta says which metadata an update of the status subresource resets
// to the stored values, beside the spec (every strategy resets the spec).
type statusMeta int

const (
	// keepMeta: labels, annotations, finalizers and owner references sent
	// to /status are stored (most built-in types: their status strategy
	// resets only the spec).
	keepMeta statusMeta = iota
	// resetLabels: Deployments reset the spec and the labels.
	resetLabels
	// resetOwners: Pods reset the spec and the owner references.
	resetOwners
	// resetAllMeta: custom resources keep only the status (and managed
	// fields) of a /status write.
	resetAllMeta
)

// strategy is what the model knows of one resource's registry strategy.
type strategy struct {
	generation generation
	statusMeta statusMeta
	// keepStatusOnCreate: the create strategy does not reset the status
	// (Nodes).
	keepStatusOnCreate bool
	// onCreate applies the strategy's other changes on create (a Pod's
	// phase, QoS class and scheduling-gated condition, a Job's selector, a
	// Namespace's finalizer); now is the create's time (the object's
	// creationTimestamp), for the conditions the strategy stamps.
	onCreate func(obj runtime.Object, now metav1.Time)
	// onUpdate applies the strategy's other changes on an update of the
	// resource (sub "") or its status (a DaemonSet's template
	// generation, a PersistentVolume's phase transition time); now is the
	// update's time.
	onUpdate func(sub string, obj, old runtime.Object, now metav1.Time)
	// conditionalOnly: the strategy's AllowUnconditionalUpdate is false,
	// an update must send a resourceVersion (Leases,
	// PodDisruptionBudgets, custom resources, ...).
	conditionalOnly bool
	// gc is the strategy's DefaultGarbageCollectionPolicy.
	gc gcPolicy
	// createOnUpdate: the strategy allows create on update (Services,
	// Leases, Roles, ...): an update of a missing object creates it.
	createOnUpdate bool
	// fieldsView, when set, is what the server's field manager sees of
	// a request's object where the strategy changes it afterwards (the
	// field manager runs before the strategy, on the request's object
	// converted to its version): a DaemonSet's template generation.
	fieldsView func(request metav1.Object) fieldsView
}

// fieldsView gives obj, the object to be stored, the values the server's
// field manager saw in the request; restore gives the field manager's
// result back the strategy's values.
type fieldsView func(obj metav1.Object) (restore func(metav1.Object))

// gcPolicy is a strategy's default garbage collection policy
// (rest.GarbageCollectionPolicy): what a delete without a propagation
// policy does to the object's dependents, and so which finalizer it adds.
type gcPolicy int

const (
	// The zero value is rest.DeleteDependents, the default (no finalizer).
	_ gcPolicy = iota
	// gcOrphan: rest.OrphanDependents, for backward compatibility
	// (batch/v1 Jobs, v1 ReplicationControllers): the orphan finalizer.
	gcOrphan
	// gcUnsupported: rest.Unsupported (Events): no propagation policy
	// adds a finalizer.
	gcUnsupported
)

// customStrategy is the strategy of every custom resource
// (k8s.io/apiextensions-apiserver/pkg/registry/customresource).
var customStrategy = strategy{generation: genNonMetadata, statusMeta: resetAllMeta, conditionalOnly: true}

// parts splits an object into its top-level fields other than the type
// and object metadata: "spec", "status", "data", ... by JSON name for
// unstructured objects, by Go field name for typed ones, whose values are
// pointers to the fields (a value would copy the field: a PodSpec is a
// kilobyte; both DeepEquals compare what pointers point to). Values are
// only compared, never changed.
func parts(obj runtime.Object) map[string]any {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		out := make(map[string]any, len(u.Object))
		for k, v := range u.Object {
			if k != "metadata" && k != "apiVersion" && k != "kind" {
				out[lower(k)] = v
			}
		}
		return out
	}
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	out := make(map[string]any, v.NumField())
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() || f.Name == "TypeMeta" || f.Name == "ObjectMeta" {
			continue
		}
		out[lower(f.Name)] = v.Field(i).Addr().Interface()
	}
	return out
}

func lower(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}

// changedParts reports whether any of the named parts differ (all parts
// but the excluded ones when names is nil).
func changedParts(old, obj runtime.Object, names []string, exclude ...string) bool {
	po, pn := parts(old), parts(obj)
	if names == nil {
		for k := range pn {
			names = append(names, k)
		}
		for k := range po {
			if _, ok := pn[k]; !ok {
				names = append(names, k)
			}
		}
	}
	for _, n := range names {
		skip := false
		for _, e := range exclude {
			skip = skip || n == e
		}
		if !skip && !reflect.DeepEqual(po[n], pn[n]) && !equality.Semantic.DeepEqual(po[n], pn[n]) {
			return true
		}
	}
	return false
}

// structField returns the settable top-level field of obj with the given JSON
// name ("spec", "status") of a typed object.
func structField(obj runtime.Object, name string) (reflect.Value, bool) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	f := v.Elem().FieldByName(string(name[0]-'a'+'A') + name[1:])
	return f, f.IsValid() && f.CanSet()
}

// copyPart sets to's part name to from's (both of one type).
func copyPart(to, from runtime.Object, name string) {
	if ut, ok := to.(*unstructured.Unstructured); ok {
		uf := from.(*unstructured.Unstructured)
		if v, ok := uf.Object[name]; ok {
			ut.Object[name] = runtime.DeepCopyJSONValue(v)
		} else {
			delete(ut.Object, name)
		}
		return
	}
	t, ok1 := structField(to, name)
	f, ok2 := structField(from, name)
	if ok1 && ok2 && t.Type() == f.Type() {
		t.Set(f)
	}
}

// clearPart sets obj's part name to its zero value.
func clearPart(obj runtime.Object, name string) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		delete(u.Object, name)
		return
	}
	if f, ok := structField(obj, name); ok {
		f.Set(reflect.Zero(f.Type()))
	}
}

// podCreate is what a create of a Pod goes through: the admission plugins
// kube-apiserver enables by default that change it (admitPod), then the Pod
// strategy's PrepareForCreate: the status starts Pending with the pod's QoS
// class and, for a pod with scheduling gates, the condition PodScheduled
// False, SchedulingGated (applySchedulingGatedCondition; the server stamps
// it with its clock, the model with its own: the create's time).
func podCreate(obj runtime.Object, now metav1.Time) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	admitPod(pod)
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: qosClass(pod)}
	if len(pod.Spec.SchedulingGates) > 0 {
		pod.Status.Conditions = []corev1.PodCondition{{
			Type:               corev1.PodScheduled,
			Status:             corev1.ConditionFalse,
			LastTransitionTime: now,
			Reason:             corev1.PodReasonSchedulingGated,
			Message:            "Scheduling is blocked due to non-empty scheduling gates",
		}}
	}
}

// podUpdate is what an update of a Pod goes through besides the
// strategy's common steps: the same admission plugins as a create
// (admitPod), which on an update keep the old pod's priority and
// preemption policy where the new one leaves them out; an update of its
// status keeps the QoS class where the new status names none.
func podUpdate(sub string, obj, old runtime.Object, _ metav1.Time) {
	pod, ok := obj.(*corev1.Pod)
	oldPod, oldOK := old.(*corev1.Pod)
	if !ok || !oldOK {
		return
	}
	if sub == "status" {
		// The status strategy backfills the QoS class, which only a create
		// sets.
		if pod.Status.QOSClass == "" {
			pod.Status.QOSClass = oldPod.Status.QOSClass
		}
		return
	}
	if sub != "" {
		return
	}
	addNoExecuteTolerations(pod)
	if pod.Spec.Priority == nil {
		pod.Spec.Priority = oldPod.Spec.Priority
	}
	if pod.Spec.PreemptionPolicy == nil {
		pod.Spec.PreemptionPolicy = oldPod.Spec.PreemptionPolicy
	}
}

// admitPod applies to a created pod the mutating admission plugins
// kube-apiserver enables by default that change every pod
// (k8s.io/kubernetes/plugin/pkg/admission):
//
//   - DefaultTolerationSeconds: a toleration of the not-ready and of the
//     unreachable NoExecute taint for 300 seconds, unless the pod
//     tolerates the taint already (a toleration with its key or no key,
//     and effect NoExecute or none);
//   - Priority: a pod that names no priority class gets priority 0 and
//     the preemption policy PreemptLowerPriority (the server's when no
//     PriorityClass is the global default); one that names a system class
//     gets its value. A pod naming another class is left as it is (the
//     model does not look PriorityClasses up), and one that sets a
//     priority or preemption policy other than its class's is kept (the
//     server forbids it).
//
// Seeds go through it only with the server's defaults (Model.Admit): a
// seed is otherwise the world as the test writes it.
func admitPod(pod *corev1.Pod) {
	addNoExecuteTolerations(pod)
	value, known := systemPriorities[pod.Spec.PriorityClassName]
	if !known {
		return
	}
	if pod.Spec.Priority == nil {
		pod.Spec.Priority = ptr.To(value)
	}
	if pod.Spec.PreemptionPolicy == nil {
		pod.Spec.PreemptionPolicy = ptr.To(corev1.PreemptLowerPriority)
	}
}

// addNoExecuteTolerations is DefaultTolerationSeconds, on a pod's create
// and on its every update.
func addNoExecuteTolerations(pod *corev1.Pod) {
	notReady, unreachable := false, false
	for _, t := range pod.Spec.Tolerations {
		if t.Effect != corev1.TaintEffectNoExecute && t.Effect != "" {
			continue
		}
		notReady = notReady || t.Key == corev1.TaintNodeNotReady || t.Key == ""
		unreachable = unreachable || t.Key == corev1.TaintNodeUnreachable || t.Key == ""
	}
	if !notReady {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, noExecuteFor300s(corev1.TaintNodeNotReady))
	}
	if !unreachable {
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, noExecuteFor300s(corev1.TaintNodeUnreachable))
	}
}

// noExecuteFor300s is DefaultTolerationSeconds' toleration of the NoExecute
// taint key.
func noExecuteFor300s(key string) corev1.Toleration {
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
}

// systemPriorities are the priorities of the classes the Priority plugin
// knows without a PriorityClass object (k8s.io/kubernetes/pkg/apis/scheduling):
// none (DefaultPriorityWhenNoDefaultClassExists) and the two system classes
// (SystemCriticalPriority, and 1000 more for nodes').
var systemPriorities = map[string]int32{
	"":                        0,
	"system-node-critical":    2_000_001_000,
	"system-cluster-critical": 2_000_000_000,
}

// qosClass computes a pod's QoS class as kube-apiserver does
// (k8s.io/kubernetes/pkg/apis/core/helper/qos): BestEffort when no
// container requests or limits CPU or memory, Guaranteed when every
// container limits both and requests what it limits, Burstable otherwise.
func qosClass(pod *corev1.Pod) corev1.PodQOSClass {
	if pod.Spec.Resources != nil { // pod-level resources decide
		return qosOf([]corev1.ResourceRequirements{*pod.Spec.Resources})
	}
	var reqs []corev1.ResourceRequirements
	for _, c := range pod.Spec.InitContainers {
		reqs = append(reqs, c.Resources)
	}
	for _, c := range pod.Spec.Containers {
		reqs = append(reqs, c.Resources)
	}
	return qosOf(reqs)
}

func qosOf(reqs []corev1.ResourceRequirements) corev1.PodQOSClass {
	compute := []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}
	any, guaranteed := false, true
	for _, r := range reqs {
		for _, name := range compute {
			req, hasReq := nonZero(r.Requests, name)
			lim, hasLim := nonZero(r.Limits, name)
			any = any || hasReq || hasLim
			if !hasLim || hasReq && req.Cmp(lim) != 0 {
				guaranteed = false
			}
		}
	}
	switch {
	case !any:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

func nonZero(l corev1.ResourceList, name corev1.ResourceName) (resource.Quantity, bool) {
	q, ok := l[name]
	return q, ok && !q.IsZero()
}

// jobCreate is the Job strategy's generateSelectorIfNeeded: unless the job
// has a manual selector, its pod template gets the job-name and
// controller-uid labels and its selector the controller-uid label.
// templateGeneration is the annotation of apps/v1 DaemonSets that holds
// their internal spec.templateGeneration.
const templateGeneration = "deprecated.daemonset.template.generation"

// daemonSetCreate is the DaemonSet strategy's PrepareForCreate: the
// template generation starts at 1 (a client's value of 1 or more is kept).
func daemonSetCreate(obj runtime.Object, _ metav1.Time) {
	om, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	if g, err := strconv.ParseInt(om.GetAnnotations()[templateGeneration], 10, 64); err == nil && g >= 1 {
		return
	}
	setAnnotation(om, templateGeneration, "1")
}

// daemonSetUpdate is the DaemonSet strategies' PrepareForUpdate: no client
// sets the template generation; a change of the pod template raises it.
func daemonSetUpdate(sub string, obj, old runtime.Object, _ metav1.Time) {
	om, err1 := meta.Accessor(obj)
	oldMeta, err2 := meta.Accessor(old)
	if err1 != nil || err2 != nil {
		return
	}
	g, _ := strconv.ParseInt(oldMeta.GetAnnotations()[templateGeneration], 10, 64)
	if sub == "" && !equality.Semantic.DeepEqual(templateOf(old), templateOf(obj)) {
		g++
	}
	if g == 0 {
		// The conversion writes no annotation for a zero generation.
		a := om.GetAnnotations()
		delete(a, templateGeneration)
		om.SetAnnotations(a)
		return
	}
	setAnnotation(om, templateGeneration, strconv.FormatInt(g, 10))
}

// daemonSetFieldsView is the template generation the server's field
// manager sees: the request's, through the internal
// spec.templateGeneration, which the apps/v1 conversion writes back
// always, "0" when the request had none. A write that does not send the
// annotation (or changes it) so owns it, though the strategy keeps the
// stored value; a create owns it always (the field manager compares the
// request with an empty apps/v1 object, which has no annotation).
func daemonSetFieldsView(request metav1.Object) fieldsView {
	seen, ok := request.GetAnnotations()[templateGeneration]
	if g, err := strconv.ParseInt(seen, 10, 64); err == nil {
		seen = strconv.FormatInt(g, 10)
	} else if !ok {
		seen = "0"
	}
	return func(obj metav1.Object) func(metav1.Object) {
		kept, had := obj.GetAnnotations()[templateGeneration]
		setAnnotation(obj, templateGeneration, seen)
		return func(out metav1.Object) {
			if had {
				setAnnotation(out, templateGeneration, kept)
			} else {
				deleteAnnotation(out, templateGeneration)
			}
		}
	}
}

func deleteAnnotation(om metav1.Object, key string) {
	a := om.GetAnnotations()
	if _, ok := a[key]; !ok {
		return
	}
	delete(a, key)
	if len(a) == 0 {
		a = nil
	}
	om.SetAnnotations(a)
}

func setAnnotation(om metav1.Object, key, value string) {
	a := om.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[key] = value
	om.SetAnnotations(a)
}

// templateOf is a DaemonSet's spec.template as JSON values (nil when
// absent). Of an apps/v1 one only the template is converted: it converts
// as it does inside the whole object.
func templateOf(obj runtime.Object) any {
	if ds, ok := obj.(*appsv1.DaemonSet); ok {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&ds.Spec.Template)
		if err != nil {
			return nil
		}
		return u
	}
	u, err := toUnstructured(obj)
	if err != nil {
		return nil
	}
	v, _, _ := unstructured.NestedFieldNoCopy(u, "spec", "template")
	return v
}

func jobCreate(obj runtime.Object, _ metav1.Time) {
	job, ok := obj.(*batchv1.Job)
	if !ok || job.Spec.ManualSelector != nil && *job.Spec.ManualSelector {
		return
	}
	if job.Spec.Template.Labels == nil {
		job.Spec.Template.Labels = map[string]string{}
	}
	for _, l := range []string{"job-name", batchv1.JobNameLabel} {
		if _, ok := job.Spec.Template.Labels[l]; !ok {
			job.Spec.Template.Labels[l] = job.Name
		}
	}
	for _, l := range []string{"controller-uid", batchv1.ControllerUidLabel} {
		if _, ok := job.Spec.Template.Labels[l]; !ok {
			job.Spec.Template.Labels[l] = string(job.UID)
		}
	}
	if job.Spec.Selector == nil {
		job.Spec.Selector = &metav1.LabelSelector{}
	}
	if job.Spec.Selector.MatchLabels == nil {
		job.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, ok := job.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel]; !ok {
		job.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = string(job.UID)
	}
}

// namespaceCreate is the Namespace strategy's PrepareForCreate: phase
// Active and the kubernetes finalizer.
func namespaceCreate(obj runtime.Object, _ metav1.Time) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return
	}
	ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	for _, f := range ns.Spec.Finalizers {
		if f == corev1.FinalizerKubernetes {
			return
		}
	}
	ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
}

// persistentVolumeCreate is the PersistentVolume strategy's
// PrepareForCreate: the status starts Pending, its phase transition
// stamped with the create's time.
//
// Before it, the admission plugin StorageObjectInUseProtection, which a
// default kube-apiserver enables, adds the finalizer
// kubernetes.io/pv-protection (the pv-protection controller removes it
// once no claim is bound to the volume).
func persistentVolumeCreate(obj runtime.Object, now metav1.Time) {
	pv, ok := obj.(*corev1.PersistentVolume)
	if !ok {
		return
	}
	admitVolume(pv)
	pv.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumePending, LastPhaseTransitionTime: &now}
}

// persistentVolumeUpdate is the PersistentVolume status strategy's
// PrepareForUpdate beside the spec it resets: a write of the status that
// keeps the phase and sends no transition time keeps the stored one; one
// that changes the phase and sends no new transition time is stamped with
// the update's time.
func persistentVolumeUpdate(sub string, obj, old runtime.Object, now metav1.Time) {
	pv, ok := obj.(*corev1.PersistentVolume)
	oldPV, oldOK := old.(*corev1.PersistentVolume)
	if !ok || !oldOK || sub != "status" {
		return
	}
	switch {
	case oldPV.Status.Phase == pv.Status.Phase && pv.Status.LastPhaseTransitionTime == nil:
		pv.Status.LastPhaseTransitionTime = oldPV.Status.LastPhaseTransitionTime.DeepCopy()
	case oldPV.Status.Phase != pv.Status.Phase && (pv.Status.LastPhaseTransitionTime == nil || pv.Status.LastPhaseTransitionTime.Equal(oldPV.Status.LastPhaseTransitionTime)):
		pv.Status.LastPhaseTransitionTime = &now
	}
}

// persistentVolumeClaimCreate is the admission plugin
// StorageObjectInUseProtection on a claim's create: the finalizer
// kubernetes.io/pvc-protection (the pvc-protection controller removes it
// once no pod uses the claim).
func persistentVolumeClaimCreate(obj runtime.Object, _ metav1.Time) {
	if pvc, ok := obj.(*corev1.PersistentVolumeClaim); ok {
		admitClaim(pvc)
	}
}

// admitClaim is StorageObjectInUseProtection on a claim.
func admitClaim(pvc *corev1.PersistentVolumeClaim) {
	pvc.Finalizers = addFinalizer(pvc.Finalizers, "kubernetes.io/pvc-protection")
}

// admitVolume is StorageObjectInUseProtection on a volume.
func admitVolume(pv *corev1.PersistentVolume) {
	pv.Finalizers = addFinalizer(pv.Finalizers, "kubernetes.io/pv-protection")
}

// nodeCreate is the admission plugin TaintNodesByCondition on a node's
// create: the taint node.kubernetes.io/not-ready:NoSchedule, unless one
// with that key and effect is there (the node lifecycle controller
// removes it once the node is ready).
func nodeCreate(obj runtime.Object, _ metav1.Time) {
	if node, ok := obj.(*corev1.Node); ok {
		admitNode(node)
	}
}

// admitNode is TaintNodesByCondition on a node.
func admitNode(node *corev1.Node) {
	for _, t := range node.Spec.Taints {
		if t.Key == corev1.TaintNodeNotReady && t.Effect == corev1.TaintEffectNoSchedule {
			return
		}
	}
	node.Spec.Taints = append(node.Spec.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
}

// addFinalizer returns finalizers with f, added at the end unless there.
func addFinalizer(finalizers []string, f string) []string {
	if slices.Contains(finalizers, f) {
		return finalizers
	}
	return append(finalizers, f)
}
