package dynamic

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
)

// deployments is the resource the table's controller annotates.
var deployments = appsv1.SchemeGroupVersion.WithResource("deployments")

// wire builds the controller on a row's fixture, from its dynamic client
// and its dynamic and metadata informer factories.
func wire(f *fixture.Fixture) fixture.SyncFunc[string] {
	return New(f.Dynamic(), deployments, f.DynamicInformers(), f.MetadataInformers()).Sync
}

// namespace returns the namespace "default" of team ("" for none).
func namespace(team string) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if team != "" {
		ns.Labels = map[string]string{TeamLabel: team}
	}
	return ns
}

// deployment returns the Deployment "web", annotated with team unless it
// is "".
func deployment(team string) *appsv1.Deployment {
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	if team != "" {
		d.Annotations = map[string]string{TeamAnnotation: team}
	}
	return d
}

// teamPatch is the merge patch that sets the annotation (null removes it).
func teamPatch(value string) []byte {
	return []byte(`{"metadata":{"annotations":{"` + TeamAnnotation + `":` + value + `}}}`)
}

// Table is the controller's scenarios: TestSync runs them on client-go's
// fakes (and in informer mode), and the parity module's tests run them on
// a real API server too. The seeds are typed objects, as in any test; the
// expected patches are written with actions.Patch, as for a typed client.
func Table() fixture.Table[string] {
	return fixture.Table[string]{
		Wire: wire,
		Rows: []fixture.Row{{
			Name:        "annotates an object with its namespace's team",
			Objects:     []runtime.Object{namespace("blue"), deployment("")},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Patch(deployment(""), types.MergePatchType, teamPatch(`"blue"`))},
		}, {
			Name:    "leaves an object annotated with its team alone",
			Objects: []runtime.Object{namespace("blue"), deployment("blue")},
			Key:     "default/web",
		}, {
			Name:        "follows a change of team",
			Objects:     []runtime.Object{namespace("blue"), deployment("red")},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Patch(deployment("red"), types.MergePatchType, teamPatch(`"blue"`))},
			WantObjects: []runtime.Object{deployment("blue")},
		}, {
			Name:        "removes the annotation in a namespace without a team",
			Objects:     []runtime.Object{namespace(""), deployment("red")},
			Key:         "default/web",
			WantActions: []actions.Action{actions.Patch(deployment("red"), types.MergePatchType, teamPatch("null"))},
		}, {
			Name:    "does nothing for a deleted object",
			Objects: []runtime.Object{namespace("blue"), fixture.Absent(deployment("blue"))},
			Key:     "default/web",
		}},
	}
}
