package kube_test

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
	"github.com/ctrltest/ctrltest/tbtest"
)

// write runs fn, a controller's write, in one sync of a fixture with
// kube.Server() that holds objs, and returns its error.
func write(t *testing.T, objs []runtime.Object, fn func(ctx context.Context, c kubernetes.Interface) error) error {
	t.Helper()
	f := fixture.New(t, kube.Server(), fixture.WithObjects(objs...))
	c := f.Kube()
	res := fixture.Sync(f, func(ctx context.Context, _ string) error { return fn(ctx, c) }, "default/x")
	return res.Err
}

// The messages below are kube-apiserver v1.37's, from its code:
// k8s.io/apimachinery/pkg/api/validate/content (labelValueErrMsg,
// dns1123SubdomainErrorMsg and RegexError), k8s.io/apimachinery/pkg/util/validation
// (InclusiveRangeError, parseIP), k8s.io/kubernetes/pkg/apis/core/validation
// (ValidatePodUpdate, ValidateLoadBalancerStatus) and apimachinery's
// ValidateImmutableField (apps' ValidateDeploymentUpdate).
const (
	labelMsg = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`
	nameMsg  = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
	ipMsg    = `must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`
	// podUpdateMsg is the first line of ValidatePodUpdate's message; a
	// diff of the two specs follows it.
	podUpdateMsg = "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"
)

// Each write kube-apiserver refuses is refused, with its message word for
// word; a valid one passes.
func TestServerRefusesWhatKubeAPIServerRefuses(t *testing.T) {
	nilIP := func(s *corev1.Service) {
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "<nil>"}}
	}
	for _, tc := range []struct {
		name  string
		seeds []runtime.Object
		write func(ctx context.Context, c kubernetes.Interface) error
		// want is the error's message, or its first line when prefix is set.
		want   string
		prefix bool
	}{{
		name: "a valid Deployment, created and updated",
		write: func(ctx context.Context, c kubernetes.Interface) error {
			d, err := c.AppsV1().Deployments("default").Create(ctx, deployment("web"), metav1.CreateOptions{})
			if err != nil {
				return err
			}
			d.Spec.Template.Spec.Containers[0].Image = "nginx:1.30"
			_, err = c.AppsV1().Deployments("default").Update(ctx, d, metav1.UpdateOptions{})
			return err
		},
	}, {
		name: "an invalid label value",
		write: func(ctx context.Context, c kubernetes.Interface) error {
			cm := configMap("settings")
			cm.Labels = map[string]string{"app": "bad value!"}
			_, err := c.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
			return err
		},
		want: `ConfigMap "settings" is invalid: metadata.labels: Invalid value: "bad value!": ` + labelMsg,
	}, {
		name: "an invalid name",
		write: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.CoreV1().ConfigMaps("default").Create(ctx, configMap("Bad_Name"), metav1.CreateOptions{})
			return err
		},
		want: `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ` + nameMsg,
	}, {
		name: "a Service port out of range",
		write: func(ctx context.Context, c kubernetes.Interface) error {
			s := service("web")
			s.Spec.Ports[0].Port = 70000
			_, err := c.CoreV1().Services("default").Create(ctx, s, metav1.CreateOptions{})
			return err
		},
		// The server defaults targetPort to port, and finds both wrong.
		want: `Service "web" is invalid: [spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive]`,
	}, {
		name:  "a Deployment's selector changed",
		seeds: []runtime.Object{deployment("web")},
		write: func(ctx context.Context, c kubernetes.Interface) error {
			d, err := c.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return err
			}
			d.Spec.Selector.MatchLabels = map[string]string{"app": "web", "tier": "front"}
			d.Spec.Template.Labels = map[string]string{"app": "web", "tier": "front"}
			_, err = c.AppsV1().Deployments("default").Update(ctx, d, metav1.UpdateOptions{})
			return err
		},
		want: `Deployment.apps "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"front"}}: field is immutable`,
	}, {
		name:  "a Pod's spec changed where pods are immutable",
		seeds: []runtime.Object{pod("p")},
		write: func(ctx context.Context, c kubernetes.Interface) error {
			p, err := c.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{})
			if err != nil {
				return err
			}
			p.Spec.Containers[0].Name = "renamed"
			_, err = c.CoreV1().Pods("default").Update(ctx, p, metav1.UpdateOptions{})
			return err
		},
		want:   `Pod "p" is invalid: spec: Forbidden: ` + podUpdateMsg,
		prefix: true,
	}, {
		name:  "a Service status update with load-balancer ingress IP <nil>",
		seeds: []runtime.Object{service("web")},
		write: func(ctx context.Context, c kubernetes.Interface) error {
			s, err := c.CoreV1().Services("default").Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return err
			}
			nilIP(s)
			_, err = c.CoreV1().Services("default").UpdateStatus(ctx, s, metav1.UpdateOptions{})
			return err
		},
		want: `Service "web" is invalid: status.loadBalancer.ingress[0].ip: Invalid value: "<nil>": ` + ipMsg,
	}, {
		name:  "a Service status merge patch with load-balancer ingress IP <nil>",
		seeds: []runtime.Object{service("web")},
		write: func(ctx context.Context, c kubernetes.Interface) error {
			patch := []byte(`{"status":{"loadBalancer":{"ingress":[{"ip":"<nil>"}]}}}`)
			_, err := c.CoreV1().Services("default").Patch(ctx, "web", types.MergePatchType, patch, metav1.PatchOptions{}, "status")
			return err
		},
		want: `Service "web" is invalid: status.loadBalancer.ingress[0].ip: Invalid value: "<nil>": ` + ipMsg,
	}, {
		name:  "a valid Service status patch",
		seeds: []runtime.Object{service("web")},
		write: func(ctx context.Context, c kubernetes.Interface) error {
			patch := []byte(`{"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.10"}]}}}`)
			_, err := c.CoreV1().Services("default").Patch(ctx, "web", types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
			return err
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			err := write(t, tc.seeds, tc.write)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("got %v; want the server's 422 Invalid: %s", err, tc.want)
			}
			got := err.Error()
			if tc.prefix {
				got, _, _ = strings.Cut(got, "\n")
			}
			if got != tc.want {
				t.Errorf("message:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// A seed kube-apiserver would refuse fails the row, naming the field;
// a seed's status is judged as the write of /status that would hold it.
func TestSeedRefusedFailsTheRow(t *testing.T) {
	badStatus := deployment("web")
	badStatus.Status.AvailableReplicas = 1
	badName := service("web")
	badName.Spec.Ports[0].Name = "HTTP"
	for _, tc := range []struct {
		name string
		seed runtime.Object
		want string
	}{{
		name: "spec",
		seed: badName,
		want: `object 0 (Service "web"): the API server would refuse this seed: Service "web" is invalid: spec.ports[0].name: Invalid value: "HTTP": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
	}, {
		name: "status",
		seed: badStatus,
		want: `object 0 (Deployment "web"): the API server would refuse this seed: Deployment.apps "web" is invalid: [status.availableReplicas: Invalid value: 1: cannot be greater than status.replicas, status.availableReplicas: Invalid value: 1: cannot be greater than readyReplicas]`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			rec := tbtest.Run(t, func(t testing.TB) {
				table := fixture.Table[string]{
					Wire: func(*fixture.Fixture) fixture.SyncFunc[string] {
						return func(context.Context, string) error { return nil }
					},
					Options: []fixture.Option{kube.Server()},
				}
				table.RunRow(t, fixture.Row{Name: "seed", Objects: []runtime.Object{tc.seed}, Key: "default/web"})
			})
			if !rec.Failed() || !strings.Contains(rec.String(), tc.want) {
				t.Errorf("failed %v, messages:\n%s\nwant one containing:\n%s", rec.Failed(), rec, tc.want)
			}
		})
	}
}

// The server's defaults are applied, on seeds and writes.
func TestServerDefaults(t *testing.T) {
	f := fixture.New(t, kube.Server(), fixture.WithObjects(deployment("web")))
	seed := f.Object(deployment("web")).(*appsv1.Deployment)
	if r := seed.Spec.Replicas; r == nil || *r != 1 {
		t.Errorf("seed's replicas %v; want the server's default, 1", r)
	}
}
