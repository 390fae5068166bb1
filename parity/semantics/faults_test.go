package semantics

import (
	"context"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/kubernetes"
	typedappsv1 "k8s.io/client-go/kubernetes/typed/apps/v1"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/parity"
	"github.com/ctrltest/ctrltest/records"
)

func validDeployment(ns, name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
			},
		},
	}
}

// faultCase is one shape of write: the request, and the same request as
// the fault sweep sees it (records.Request).
type faultCase struct {
	name string
	do   func(ctx context.Context, c typedappsv1.DeploymentInterface, name, rv string) error
	req  func(rv string) records.Request
}

func write(verb string, pt types.PatchType) actions.Action {
	return actions.Action{Verb: verb, PatchType: pt, Resource: appsv1.SchemeGroupVersion.WithResource("deployments")}
}

var faultCases = []faultCase{{
	name: "update without resourceVersion",
	do: func(ctx context.Context, c typedappsv1.DeploymentInterface, name, _ string) error {
		d, err := c.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			d = validDeployment("", name)
		}
		d.ResourceVersion, d.UID = "", ""
		_, err = c.Update(ctx, d, metav1.UpdateOptions{})
		return err
	},
	req: func(string) records.Request { return records.Request{Action: write("update", "")} },
}, {
	name: "update with resourceVersion",
	do: func(ctx context.Context, c typedappsv1.DeploymentInterface, name, rv string) error {
		d := validDeployment("", name)
		d.ResourceVersion = rv
		_, err := c.Update(ctx, d, metav1.UpdateOptions{})
		return err
	},
	req: func(rv string) records.Request {
		return records.Request{Action: write("update", ""), ResourceVersion: rv}
	},
}, {
	name: "merge patch",
	do: func(ctx context.Context, c typedappsv1.DeploymentInterface, name, _ string) error {
		_, err := c.Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{})
		return err
	},
	req: func(string) records.Request {
		return records.Request{Action: write("patch", types.MergePatchType)}
	},
}, {
	name: "merge patch with resourceVersion",
	do: func(ctx context.Context, c typedappsv1.DeploymentInterface, name, rv string) error {
		_, err := c.Patch(ctx, name, types.MergePatchType, fmt.Appendf(nil, `{"metadata":{"resourceVersion":%q},"spec":{"replicas":3}}`, rv), metav1.PatchOptions{})
		return err
	},
	req: func(rv string) records.Request {
		return records.Request{Action: write("patch", types.MergePatchType), ResourceVersion: rv}
	},
}, {
	name: "strategic patch",
	do: func(ctx context.Context, c typedappsv1.DeploymentInterface, name, _ string) error {
		_, err := c.Patch(ctx, name, types.StrategicMergePatchType, []byte(`{"spec":{"replicas":3}}`), metav1.PatchOptions{})
		return err
	},
	req: func(string) records.Request {
		return records.Request{Action: write("patch", types.StrategicMergePatchType)}
	},
}, {
	name: "json patch",
	do: func(ctx context.Context, c typedappsv1.DeploymentInterface, name, _ string) error {
		_, err := c.Patch(ctx, name, types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/replicas","value":3}]`), metav1.PatchOptions{})
		return err
	},
	req: func(string) records.Request {
		return records.Request{Action: write("patch", types.JSONPatchType)}
	},
}, {
	name: "json patch replacing resourceVersion",
	do: func(ctx context.Context, c typedappsv1.DeploymentInterface, name, rv string) error {
		_, err := c.Patch(ctx, name, types.JSONPatchType,
			fmt.Appendf(nil, `[{"op":"replace","path":"/metadata/resourceVersion","value":%q},{"op":"replace","path":"/spec/replicas","value":3}]`, rv), metav1.PatchOptions{})
		return err
	},
	req: func(rv string) records.Request {
		return records.Request{Action: write("patch", types.JSONPatchType), ResourceVersion: rv}
	},
}, {
	name: "forced apply",
	do: func(ctx context.Context, c typedappsv1.DeploymentInterface, name, _ string) error {
		_, err := c.Apply(ctx, applied(name, ""), metav1.ApplyOptions{FieldManager: "ctl", Force: true})
		return err
	},
	req: func(string) records.Request {
		return records.Request{Action: write("patch", types.ApplyPatchType), Force: true}
	},
}, {
	name: "apply without force",
	do: func(ctx context.Context, c typedappsv1.DeploymentInterface, name, _ string) error {
		_, err := c.Apply(ctx, applied(name, ""), metav1.ApplyOptions{FieldManager: "ctl"})
		return err
	},
	req: func(string) records.Request {
		return records.Request{Action: write("patch", types.ApplyPatchType)}
	},
}, {
	name: "forced apply to status",
	do: func(ctx context.Context, c typedappsv1.DeploymentInterface, name, _ string) error {
		_, err := c.ApplyStatus(ctx, appsv1ac.Deployment(name, "").WithStatus(appsv1ac.DeploymentStatus().WithReplicas(3)), metav1.ApplyOptions{FieldManager: "ctl", Force: true})
		return err
	},
	req: func(string) records.Request {
		a := write("patch", types.ApplyPatchType)
		a.Subresource = "status"
		return records.Request{Action: a, Force: true}
	},
}, {
	name: "forced apply with resourceVersion",
	do: func(ctx context.Context, c typedappsv1.DeploymentInterface, name, rv string) error {
		_, err := c.Apply(ctx, applied(name, rv), metav1.ApplyOptions{FieldManager: "ctl", Force: true})
		return err
	},
	req: func(rv string) records.Request {
		return records.Request{Action: write("patch", types.ApplyPatchType), ResourceVersion: rv, Force: true}
	},
}, {
	name: "delete",
	do: func(ctx context.Context, c typedappsv1.DeploymentInterface, name, _ string) error {
		return c.Delete(ctx, name, metav1.DeleteOptions{})
	},
	req: func(string) records.Request { return records.Request{Action: write("delete", "")} },
}, {
	name: "delete with a resourceVersion precondition",
	do: func(ctx context.Context, c typedappsv1.DeploymentInterface, name, rv string) error {
		return c.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}})
	},
	req: func(rv string) records.Request {
		return records.Request{Action: write("delete", ""), ResourceVersion: rv}
	},
}}

// applied is a complete apply configuration of validDeployment, with 3
// replicas and, when rv is set, a resourceVersion.
func applied(name, rv string) *appsv1ac.DeploymentApplyConfiguration {
	d := validDeployment("", name)
	c := appsv1ac.Deployment(name, "").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(3).
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(d.Spec.Selector.MatchLabels)).
		WithTemplate(corev1ac.PodTemplateSpec().WithLabels(d.Spec.Template.Labels).
			WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("c").WithImage("busybox")))))
	if rv != "" {
		c.WithResourceVersion(rv)
	}
	return c
}

// TestFaultSweepRulesOnTheServer checks the fault sweep's rules
// (fixture.DefaultFaults()) on kube-apiserver: each write is made on an
// object another manager changed since it was read (and whose replicas
// that manager owns), then on an object deleted since; the sweep injects a
// conflict exactly where the server answered the first with one, and
// not-found exactly where it answered the second with one.
func TestFaultSweepRulesOnTheServer(t *testing.T) {
	srv := parity.Shared(t)
	ctx := t.Context()
	client, err := kubernetes.NewForConfig(srv.ClientConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	ns := "fault-sweep-rules"
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	deps := client.AppsV1().Deployments(ns)
	faults := map[string]fixture.Fault{}
	for _, f := range fixture.DefaultFaults() {
		faults[f.Name] = f
	}
	for i, fc := range faultCases {
		for _, world := range []string{"stale", "gone"} {
			name := fmt.Sprintf("web-%d-%s", i, world)
			if _, err := deps.Create(ctx, validDeployment(ns, name), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			read, err := deps.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			fault, is := faults["conflict"], apierrors.IsConflict
			switch world {
			case "stale":
				other := appsv1ac.Deployment(name, ns).WithSpec(appsv1ac.DeploymentSpec().WithReplicas(2))
				if _, err := deps.Apply(ctx, other, metav1.ApplyOptions{FieldManager: "another-manager", Force: true}); err != nil {
					t.Fatal(err)
				}
			case "gone":
				fault, is = faults["not-found"], apierrors.IsNotFound
				if err := deps.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			err = fc.do(ctx, deps, name, read.ResourceVersion)
			if got, want := fault.Applies(fc.req(read.ResourceVersion)), is(err); got != want {
				t.Errorf("%s, %s object: the sweep injects %s: %v; the server answered %v", fc.name, world, fault.Name, got, err)
			}
			if err != nil && !is(err) {
				t.Errorf("%s, %s object: the server answered %v; want success or %s", fc.name, world, err, fault.Name)
			}
		}
	}
}
