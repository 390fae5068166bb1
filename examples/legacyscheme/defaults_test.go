package legacyscheme

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
)

// TestMain fails the run when a goroutine outlives the tests.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// deployment is a Deployment as a controller writes it: what it cares
// about, nothing the server defaults.
func deployment(name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:latest"}}},
			},
		},
	}
}

// defaulted is what kube-apiserver v1.37 stores for deployment(name) (see
// docs/parity.md: the Deployment defaults parity found on the server).
func defaulted(name string) *appsv1.Deployment {
	d := deployment(name)
	quarter := intstr.FromString("25%")
	d.Spec.Replicas = ptr.To[int32](1)
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &quarter, MaxSurge: &quarter}}
	d.Spec.RevisionHistoryLimit = ptr.To[int32](10)
	d.Spec.ProgressDeadlineSeconds = ptr.To[int32](600)
	pod := &d.Spec.Template.Spec
	pod.RestartPolicy = corev1.RestartPolicyAlways
	pod.DNSPolicy = corev1.DNSClusterFirst
	pod.TerminationGracePeriodSeconds = ptr.To[int64](30)
	pod.SecurityContext = &corev1.PodSecurityContext{}
	pod.SchedulerName = corev1.DefaultSchedulerName
	c := &pod.Containers[0]
	c.ImagePullPolicy = corev1.PullAlways // the image's tag is latest
	c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	return d
}

// The server's defaults, on a seed and on a write: what a controller that
// compares whole specs would see on a cluster.
func TestServerDefaultsForBuiltInTypes(t *testing.T) {
	f := fixture.New(t, kube.Server(), fixture.WithObjects(deployment("web")))
	kube := f.Kube()
	var created *appsv1.Deployment
	res := fixture.Sync(f, func(ctx context.Context, _ string) error {
		var err error
		created, err = kube.AppsV1().Deployments("default").Create(ctx, deployment("api"), metav1.CreateOptions{})
		return err
	}, "default/web")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	spec := func(d *appsv1.Deployment) appsv1.DeploymentSpec { return d.Spec }
	if diff := cmp.Diff(spec(defaulted("api")), spec(created)); diff != "" {
		t.Errorf("the created Deployment's spec (-want +got):\n%s", diff)
	}
	seed := f.Object(deployment("web")).(*appsv1.Deployment)
	if diff := cmp.Diff(spec(defaulted("web")), spec(seed)); diff != "" {
		t.Errorf("the seeded Deployment's spec (-want +got):\n%s", diff)
	}
	// Without the option: the fakes' world, nothing defaulted.
	plain := fixture.New(t, fixture.WithObjects(deployment("web")))
	if got := plain.Object(deployment("web")).(*appsv1.Deployment); got.Spec.Replicas != nil {
		t.Errorf("without kube.Server() a seed got replicas %d", *got.Spec.Replicas)
	}
}
