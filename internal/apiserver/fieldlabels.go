package apiserver

import (
	"errors"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// fieldLabels is what kube-apiserver lets a field selector name on one
// kind: its field-label conversion function (the v1 API packages'
// AddFieldLabelConversionFunc, k8s.io/kubernetes v1.37 pkg/apis/*/*/
// conversion.go) and the values its registry's GetAttrs gives each field
// (the strategies' ToSelectableFields). metadata.name and
// metadata.namespace are computed apart (see Selection).
type fieldLabels struct {
	// labels maps each label the conversion function accepts to the
	// field the server selects on (most map to themselves; a Pod's
	// "spec.host" is "spec.nodeName", an events.k8s.io Event's
	// "regarding.kind" is "involvedObject.kind").
	labels map[string]string
	// refuse is the conversion function's error for any other label.
	refuse func(label string) error
	// values are the kind's own fields (beyond metadata), each computed
	// from the object's JSON as the registry's GetAttrs does. A label the
	// conversion accepts that has no value here is "" for every object,
	// as on the server (a Pod's status.podIPs).
	values map[string]func(obj map[string]any) string
}

// defaultFieldLabels is runtime.DefaultMetaV1FieldSelectorConversion: a
// kind without a conversion function of its own selects on metadata.name
// and metadata.namespace only.
var defaultFieldLabels = &fieldLabels{
	labels: map[string]string{"metadata.name": "metadata.name", "metadata.namespace": "metadata.namespace"},
	refuse: func(label string) error {
		return fmt.Errorf("%q is not a known field selector: only %q, %q", label, "metadata.name", "metadata.namespace")
	},
}

// notSupported is the message of most conversion functions.
func notSupported(label string) error { return errors.New("field label not supported: " + label) }

// same maps each label to itself.
func same(labels ...string) map[string]string {
	m := make(map[string]string, len(labels))
	for _, l := range labels {
		m[l] = l
	}
	return m
}

// str returns the string at path, "" when absent.
func str(path ...string) func(map[string]any) string {
	return func(obj map[string]any) string {
		s, _, _ := unstructured.NestedString(obj, path...)
		return s
	}
}

// integer returns the integer at path in decimal, "0" when absent
// (strconv.Itoa of the internal type's int32).
func integer(path ...string) func(map[string]any) string {
	return func(obj map[string]any) string {
		v, _, _ := unstructured.NestedFieldNoCopy(obj, path...)
		switch n := v.(type) {
		case int64:
			return strconv.FormatInt(n, 10)
		case float64:
			return strconv.FormatInt(int64(n), 10)
		}
		return "0"
	}
}

// boolean returns the boolean at path, "false" when absent.
func boolean(path ...string) func(map[string]any) string {
	return func(obj map[string]any) string {
		b, _, _ := unstructured.NestedBool(obj, path...)
		return strconv.FormatBool(b)
	}
}

// firstPodIP is the Pod strategy's status.podIP: the first of
// status.podIPs.
func firstPodIP(obj map[string]any) string {
	ips, _, _ := unstructured.NestedSlice(obj, "status", "podIPs")
	if len(ips) == 0 {
		return ""
	}
	m, _ := ips[0].(map[string]any)
	s, _ := m["ip"].(string)
	return s
}

// eventValues are the core Event strategy's fields; prefix is the path of
// the involved object ("involvedObject", "regarding" in events.k8s.io),
// source that of the event source ("source", "deprecatedSource") and
// reporting that of the reporting controller.
func eventValues(involved, source, reporting string) map[string]func(map[string]any) string {
	return map[string]func(map[string]any) string{
		"involvedObject.kind":            str(involved, "kind"),
		"involvedObject.namespace":       str(involved, "namespace"),
		"involvedObject.name":            str(involved, "name"),
		"involvedObject.uid":             str(involved, "uid"),
		"involvedObject.apiVersion":      str(involved, "apiVersion"),
		"involvedObject.resourceVersion": str(involved, "resourceVersion"),
		"involvedObject.fieldPath":       str(involved, "fieldPath"),
		"reason":                         str("reason"),
		"reportingComponent":             str(reporting),
		"type":                           str("type"),
		"source": func(obj map[string]any) string {
			if s := str(source, "component")(obj); s != "" {
				return s
			}
			return str(reporting)(obj)
		},
	}
}

var (
	coreEventLabels = &fieldLabels{
		labels: same("involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
			"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
			"reason", "reportingComponent", "source", "type", "metadata.namespace", "metadata.name"),
		refuse: notSupported,
		values: eventValues("involvedObject", "source", "reportingComponent"),
	}
	// events.k8s.io's conversion maps its field names to the core ones.
	eventsEventLabels = &fieldLabels{
		labels: map[string]string{
			"reason":                    "reason",
			"regarding.kind":            "involvedObject.kind",
			"regarding.namespace":       "involvedObject.namespace",
			"regarding.name":            "involvedObject.name",
			"regarding.uid":             "involvedObject.uid",
			"regarding.apiVersion":      "involvedObject.apiVersion",
			"regarding.resourceVersion": "involvedObject.resourceVersion",
			"regarding.fieldPath":       "involvedObject.fieldPath",
			"reportingController":       "reportingComponent",
			"type":                      "type",
			"metadata.namespace":        "metadata.namespace",
			"metadata.name":             "metadata.name",
		},
		refuse: notSupported,
		values: eventValues("regarding", "deprecatedSource", "reportingController"),
	}
	signerLabels = &fieldLabels{
		labels: same("metadata.name", "spec.signerName"),
		refuse: notSupported,
		values: map[string]func(map[string]any) string{"spec.signerName": str("spec", "signerName")},
	}
	podCertificateRequestLabels = &fieldLabels{
		labels: same("metadata.name", "spec.signerName", "spec.podName", "spec.nodeName"),
		refuse: notSupported,
		// The strategy's GetAttrs gives metadata only.
	}
	statusSuccessful = map[string]func(map[string]any) string{"status.successful": integer("status", "succeeded")}
)

// resourceSliceLabels is the conversion of resource.k8s.io's ResourceSlice
// in version gv.
func resourceSliceLabels(gv schema.GroupVersion) *fieldLabels {
	gvk := gv.WithKind("ResourceSlice")
	return &fieldLabels{
		labels: same("metadata.name", "spec.nodeName", "spec.driver", "spec.pool.name"),
		refuse: func(label string) error { return fmt.Errorf("field label not supported for %s: %s", gvk, label) },
		values: map[string]func(map[string]any) string{
			"spec.nodeName":  str("spec", "nodeName"),
			"spec.driver":    str("spec", "driver"),
			"spec.pool.name": str("spec", "pool", "name"),
		},
	}
}

// batchV1beta1Labels is batch/v1beta1's conversion of kind.
func batchV1beta1Labels(kind string) *fieldLabels {
	return &fieldLabels{
		labels: same("metadata.name", "metadata.namespace", "status.successful"),
		refuse: func(label string) error { return fmt.Errorf("field label %q not supported for %q", label, kind) },
	}
}

// statefulSetBetaLabels is apps/v1beta1's and apps/v1beta2's conversion
// of StatefulSet (whose strategy's GetAttrs gives metadata only).
func statefulSetBetaLabels(version string) *fieldLabels {
	return &fieldLabels{
		labels: same("metadata.name", "metadata.namespace", "status.successful"),
		refuse: func(label string) error {
			return fmt.Errorf("field label not supported for apps%s.StatefulSet: %s", version, label)
		},
	}
}

// The field-label conversions of single kinds (see builtins).
var (
	podLabels = &fieldLabels{
		labels: map[string]string{
			"metadata.name": "metadata.name", "metadata.namespace": "metadata.namespace",
			"spec.nodeName": "spec.nodeName", "spec.restartPolicy": "spec.restartPolicy",
			"spec.schedulerName": "spec.schedulerName", "spec.serviceAccountName": "spec.serviceAccountName",
			"spec.hostNetwork": "spec.hostNetwork", "status.phase": "status.phase",
			"status.podIP": "status.podIP", "status.podIPs": "status.podIPs",
			"status.nominatedNodeName": "status.nominatedNodeName",
			"spec.host":                "spec.nodeName", // old v1 clients
		},
		refuse: notSupported,
		values: map[string]func(map[string]any) string{
			"spec.nodeName":            str("spec", "nodeName"),
			"spec.restartPolicy":       str("spec", "restartPolicy"),
			"spec.schedulerName":       str("spec", "schedulerName"),
			"spec.serviceAccountName":  str("spec", "serviceAccountName"),
			"spec.hostNetwork":         boolean("spec", "hostNetwork"),
			"status.phase":             str("status", "phase"),
			"status.podIP":             firstPodIP,
			"status.nominatedNodeName": str("status", "nominatedNodeName"),
		},
	}
	nodeLabels = &fieldLabels{
		labels: same("metadata.name", "spec.unschedulable"),
		refuse: notSupported,
		values: map[string]func(map[string]any) string{"spec.unschedulable": boolean("spec", "unschedulable")},
	}
	replicationControllerLabels = &fieldLabels{
		labels: same("metadata.name", "metadata.namespace", "status.replicas"),
		refuse: notSupported,
		values: map[string]func(map[string]any) string{"status.replicas": integer("status", "replicas")},
	}
	namespaceLabels = &fieldLabels{
		labels: same("status.phase", "metadata.name"),
		refuse: notSupported,
		values: map[string]func(map[string]any) string{"status.phase": str("status", "phase")},
	}
	secretLabels = &fieldLabels{
		labels: same("type", "metadata.namespace", "metadata.name"),
		refuse: notSupported,
		values: map[string]func(map[string]any) string{"type": str("type")},
	}
	serviceLabels = &fieldLabels{
		labels: same("metadata.namespace", "metadata.name", "spec.clusterIP", "spec.type"),
		refuse: notSupported,
		values: map[string]func(map[string]any) string{
			"spec.clusterIP": str("spec", "clusterIP"),
			"spec.type":      str("spec", "type"),
		},
	}
	jobLabels = &fieldLabels{
		labels: same("metadata.name", "metadata.namespace", "status.successful"),
		refuse: func(label string) error { return fmt.Errorf("field label %q not supported for Job", label) },
		values: statusSuccessful,
	}
)
