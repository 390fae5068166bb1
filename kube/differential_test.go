package kube_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"
	typedappsv1 "k8s.io/client-go/kubernetes/typed/apps/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
)

// step is one request of a sequence: what it returned.
type step struct {
	name string
	do   func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error)
}

// outcome is what a step got: the object (normalized) or the error.
type outcome struct {
	Object runtime.Object
	Err    *metav1.Status
}

// run replays steps in one sync of a fixture made with opts.
func run(t *testing.T, steps []step, opts ...fixture.Option) []outcome {
	t.Helper()
	out, _ := runPrepared(t, steps, opts...)
	return out
}

// runPrepared is run, and returns, per step, how the model's object of
// each write it validated differs from what kube-apiserver's registry
// strategy prepares of it (kube.Prepared): "-model +strategy" diffs, to
// be given after kube.Server() in opts (which it follows).
func runPrepared(t *testing.T, steps []step, opts ...fixture.Option) ([]outcome, [][]string) {
	t.Helper()
	diffs := make([][]string, len(steps))
	current := 0
	opts = append(opts, fixture.WithValidation(func(v fixture.Validation) field.ErrorList {
		p, err := kube.Prepared(v)
		if err != nil {
			diffs[current] = append(diffs[current], err.Error())
		} else if p != nil {
			if d := cmp.Diff(v.Object, p, preparedOptions); d != "" {
				diffs[current] = append(diffs[current], d)
			}
		}
		return nil
	}))
	f := fixture.New(t, opts...)
	c := f.Kube()
	var out []outcome
	fixture.Sync(f, func(ctx context.Context, _ string) error {
		for i, s := range steps {
			current = i
			obj, err := s.do(ctx, c)
			o := outcome{}
			if err != nil {
				st := apierrors.APIStatus(nil)
				if !errors.As(err, &st) {
					t.Fatalf("%s: %v is no API error", s.name, err)
				}
				status := st.Status()
				o.Err = &status
			} else if obj != nil {
				obj = obj.DeepCopyObject()
				// The server's defaults, which the bare model lacks: every
				// other difference counts.
				kube.Default(obj)
				o.Object = obj
			}
			out = append(out, o)
		}
		return nil
	}, "default/x")
	return out, diffs
}

// preparedOptions compare the model's object with the strategy's: the
// type's meta aside (the conversion back sets it), nil and empty alike
// (the conversion makes empty of some nil lists and maps), and the
// resourceVersion, which the store sets after the strategy (an
// unconditional update's is the stored one there, none yet in the model);
// the transition times a strategy stamps with its own clock (the model
// stamps them with the fixture's): only whether one is set counts.
var preparedOptions = cmp.Options{
	cmpopts.IgnoreTypes(metav1.TypeMeta{}),
	cmpopts.IgnoreFields(metav1.ObjectMeta{}, "ResourceVersion"),
	cmp.FilterPath(func(p cmp.Path) bool {
		last := p.Last().String()
		return last == ".LastTransitionTime" || last == ".LastPhaseTransitionTime"
	}, cmp.Options{
		cmp.Comparer(func(a, b metav1.Time) bool { return a.IsZero() == b.IsZero() }),
		cmp.Comparer(func(a, b *metav1.Time) bool { return (a == nil) == (b == nil) }),
	}),
	cmpopts.EquateEmpty(),
}

// The differential test (issue 34, item 3, a first version): request
// sequences on built-in types replayed on the bare server model and with
// kube.Server(); they must answer and store alike but for the server's
// defaults (applied to both sides' answers before comparing) and the
// writes kube-apiserver's validation refuses (422 with kube.Server(),
// accepted by the bare model), after which a sequence stops, the two
// worlds having parted.
func TestDifferential(t *testing.T) {
	deployments := func(c kubernetes.Interface) typedappsv1.DeploymentInterface { return c.AppsV1().Deployments("default") }
	get := func(ctx context.Context, c kubernetes.Interface) (*appsv1.Deployment, error) {
		return deployments(c).Get(ctx, "web", metav1.GetOptions{})
	}
	mutate := func(name string, fn func(d *appsv1.Deployment), rv bool) step {
		return step{name, func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
			d, err := get(ctx, c)
			if err != nil {
				return nil, err
			}
			fn(d)
			if !rv {
				d.ResourceVersion = ""
			}
			return deployments(c).Update(ctx, d, metav1.UpdateOptions{})
		}}
	}
	patch := func(name string, pt types.PatchType, body string, sub ...string) step {
		return step{name, func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
			return deployments(c).Patch(ctx, "web", pt, []byte(body), metav1.PatchOptions{}, sub...)
		}}
	}
	createDeployment := step{"create", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
		return deployments(c).Create(ctx, deployment("web"), metav1.CreateOptions{})
	}}
	list := step{"list", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
		return deployments(c).List(ctx, metav1.ListOptions{})
	}}
	services := func(c kubernetes.Interface) typedcorev1.ServiceInterface { return c.CoreV1().Services("default") }
	pods := func(c kubernetes.Interface) typedcorev1.PodInterface { return c.CoreV1().Pods("default") }
	configMaps := func(c kubernetes.Interface) typedcorev1.ConfigMapInterface { return c.CoreV1().ConfigMaps("default") }

	for _, tc := range []struct {
		name  string
		steps []step
		// refused is the step kube-apiserver's validation refuses, where
		// the sequence stops ("": none).
		refused string
	}{{
		name: "Deployment: updates, patches, status, delete",
		steps: []step{
			createDeployment,
			mutate("update with resourceVersion", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "nginx:1.30" }, true),
			mutate("update without resourceVersion", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](3) }, false),
			mutate("update with a stale resourceVersion", func(d *appsv1.Deployment) { d.ResourceVersion = "1"; d.Labels["x"] = "y" }, true),
			patch("merge patch", types.MergePatchType, `{"metadata":{"labels":{"tier":"front"}}}`),
			patch("strategic merge patch", types.StrategicMergePatchType, `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.31"}]}}}}`),
			patch("json patch", types.JSONPatchType, `[{"op":"replace","path":"/spec/replicas","value":2}]`),
			mutate("an update's status is dropped", func(d *appsv1.Deployment) { d.Status.Replicas = 9 }, true),
			{"update status", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				d, err := get(ctx, c)
				if err != nil {
					return nil, err
				}
				d.Status = appsv1.DeploymentStatus{Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, ObservedGeneration: d.Generation}
				return deployments(c).UpdateStatus(ctx, d, metav1.UpdateOptions{})
			}},
			patch("status patch", types.MergePatchType, `{"status":{"readyReplicas":2,"availableReplicas":2}}`, "status"),
			list,
			{"delete", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				return nil, deployments(c).Delete(ctx, "web", metav1.DeleteOptions{})
			}},
			{"get deleted", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) { return get(ctx, c) }},
			list,
		},
	}, {
		name:    "Deployment: the selector changed",
		refused: "selector patch",
		steps: []step{
			createDeployment,
			patch("selector patch", types.MergePatchType, `{"spec":{"selector":{"matchLabels":{"app":"api"}},"template":{"metadata":{"labels":{"app":"api"}}}}}`),
			list,
		},
	}, {
		name:    "Deployment: a status the server refuses",
		refused: "status patch",
		steps: []step{
			createDeployment,
			patch("status patch", types.MergePatchType, `{"status":{"availableReplicas":3}}`, "status"),
			list,
		},
	}, {
		name:    "Service: status writes",
		refused: "status update <nil>",
		steps: []step{
			{"create", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				return services(c).Create(ctx, service("web"), metav1.CreateOptions{})
			}},
			{"status patch", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				return services(c).Patch(ctx, "web", types.MergePatchType, []byte(`{"status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.10"}]}}}`), metav1.PatchOptions{}, "status")
			}},
			{"spec patch", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				return services(c).Patch(ctx, "web", types.StrategicMergePatchType, []byte(`{"spec":{"ports":[{"name":"http","port":80,"targetPort":8080}]}}`), metav1.PatchOptions{})
			}},
			{"status update <nil>", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				s, err := services(c).Get(ctx, "web", metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				s.Status.LoadBalancer.Ingress[0].IP = "<nil>"
				return services(c).UpdateStatus(ctx, s, metav1.UpdateOptions{})
			}},
		},
	}, {
		name:    "Pod: status, an image change, a forbidden change",
		refused: "restartPolicy patch",
		steps: []step{
			{"create", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				return pods(c).Create(ctx, pod("p"), metav1.CreateOptions{})
			}},
			{"status update", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				p, err := pods(c).Get(ctx, "p", metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				p.Status.Phase = corev1.PodRunning
				return pods(c).UpdateStatus(ctx, p, metav1.UpdateOptions{})
			}},
			{"image patch", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				return pods(c).Patch(ctx, "p", types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/containers/0/image","value":"app:2"}]`), metav1.PatchOptions{})
			}},
			{"restartPolicy patch", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				return pods(c).Patch(ctx, "p", types.MergePatchType, []byte(`{"spec":{"restartPolicy":"Never"}}`), metav1.PatchOptions{})
			}},
		},
	}, {
		name:    "ConfigMap: create, update without resourceVersion, delete, create again, invalid label",
		refused: "invalid label",
		steps: []step{
			{"create", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				return configMaps(c).Create(ctx, configMap("settings"), metav1.CreateOptions{})
			}},
			{"update", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				cm := configMap("settings")
				cm.Data["k"] = "w"
				return configMaps(c).Update(ctx, cm, metav1.UpdateOptions{})
			}},
			{"delete", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				return nil, configMaps(c).Delete(ctx, "settings", metav1.DeleteOptions{})
			}},
			{"create again", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				return configMaps(c).Create(ctx, configMap("settings"), metav1.CreateOptions{})
			}},
			{"invalid label", func(ctx context.Context, c kubernetes.Interface) (runtime.Object, error) {
				return configMaps(c).Patch(ctx, "settings", types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"-"}}}`), metav1.PatchOptions{})
			}},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			bare := run(t, tc.steps)
			server, prepared := runPrepared(t, tc.steps, kube.Server())
			ignore := cmp.Options{
				cmpopts.IgnoreFields(metav1.ManagedFieldsEntry{}, "Time"),
				cmpopts.IgnoreFields(metav1.ObjectMeta{}, "CreationTimestamp"),
			}
			for i, s := range tc.steps {
				b, k := bare[i], server[i]
				if b.Err == nil && k.Err != nil && k.Err.Reason == metav1.StatusReasonInvalid {
					if s.name != tc.refused {
						t.Errorf("step %d (%s): refused by kube-apiserver's validation, accepted by the bare model: %s; want it refused at step %q", i, s.name, k.Err.Message, tc.refused)
					}
					return // the two worlds have parted
				}
				if diff := cmp.Diff(b, k, ignore); diff != "" {
					t.Fatalf("step %d (%s): the bare model and kube.Server() differ (-bare +kube.Server()):\n%s", i, s.name, diff)
				}
				for _, d := range prepared[i] {
					t.Errorf("step %d (%s): the model stores what kube-apiserver's strategy would prepare otherwise (-model +strategy):\n%s", i, s.name, d)
				}
			}
			if tc.refused != "" {
				t.Errorf("kube.Server() refused no step; want %q refused", tc.refused)
			}
		})
	}
}
