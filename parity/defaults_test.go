package parity

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testServerFilled: the dry run names the fields kube-apiserver fills in
// on a create (a Deployment's defaults, a Pod's phase from its strategy),
// and not a status count a controller writes, which a create clears.
// TestServerStartsAndStops runs it on its server.
func testServerFilled(t *testing.T, srv *Server) {
	filled := serverFilled(t.Context(), srv)
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "gone", Name: "web", ResourceVersion: "12", UID: "fakes-uid"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web"}}},
			},
		},
	}
	paths, ok := filled(d, deploymentsGVR)
	if !ok {
		t.Fatal("serverFilled cannot tell for a valid Deployment")
	}
	for path, want := range map[string]bool{
		"spec.revisionHistoryLimit":    true,
		"spec.progressDeadlineSeconds": true,
		"spec.replicas":                true,
		"status.replicas":              false,
		"status.availableReplicas":     false,
	} {
		if paths[path] != want {
			t.Errorf("the server fills %s: %v, want %v (it fills %v)", path, paths[path], want, paths)
		}
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", GenerateName: "web-"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web"}}},
	}
	if paths, ok := filled(pod, corev1.SchemeGroupVersion.WithResource("pods")); !ok || !paths["status.phase"] || !paths["spec.restartPolicy"] {
		t.Errorf("the server fills a Pod's %v (ok %v), want status.phase and spec.restartPolicy among them", paths, ok)
	}
	// An object the server refuses: it cannot tell.
	if _, ok := filled(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "bad"}}, deploymentsGVR); ok {
		t.Errorf("serverFilled tells for a Deployment the server refuses")
	}
}
