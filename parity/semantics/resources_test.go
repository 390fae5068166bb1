package semantics

import (
	"context"
	"encoding/base64"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	foov1alpha1 "github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	fooapply "github.com/ctrltest/ctrltest/controller/generated/applyconfiguration"
	fooversioned "github.com/ctrltest/ctrltest/controller/generated/clientset/versioned"
	foofake "github.com/ctrltest/ctrltest/controller/generated/clientset/versioned/fake"
	fooinformers "github.com/ctrltest/ctrltest/controller/generated/informers/externalversions"
	"github.com/ctrltest/ctrltest/fixture"
	gatewayv1alpha1 "github.com/ctrltest/ctrltest/internal/testapi/apis/gateway/v1alpha1"
	gatewayversioned "github.com/ctrltest/ctrltest/internal/testapi/generated/clientset/versioned"
	gatewayfake "github.com/ctrltest/ctrltest/internal/testapi/generated/clientset/versioned/fake"
	gatewayinformers "github.com/ctrltest/ctrltest/internal/testapi/generated/informers/externalversions"
)

// The custom resources' clientsets: Foo has a status subresource
// (controller/artifacts/crd.yaml), Gateway has none (testdata/gateways.yaml).
// Foo's applies use its OpenAPI schema (fixture.ManagedFields), as the
// built-in kubernetes clientset's do; Gateway's, whose generated package
// has no schema, a deduced one.
var (
	foos = fixture.Register(foofake.NewSimpleClientset, foofake.AddToScheme, fooinformers.NewSharedInformerFactory,
		fixture.ManagedFields(fooapply.NewTypeConverter, fixture.AppliesOnly), fixture.ForConfig(fooversioned.NewForConfig))
	gateways = fixture.Register(gatewayfake.NewSimpleClientset, gatewayfake.AddToScheme, gatewayinformers.NewSharedInformerFactory,
		fixture.ForConfig(gatewayversioned.NewForConfig))
)

// options are the fixture options of every run, on the fakes and on the
// server: the kubernetes clientset (built in) and the custom resources'.
// The fakes' world is the default one; to try another, add its option
// here (WithServer overrides the fakes on the server's side).
func options() []fixture.Option {
	return []fixture.Option{fixture.WithClientset(foos), fixture.WithClientset(gateways)}
}

// resource is a type the sequences run on: how to make a valid object of
// it, how to reach it, and which of its fields the sequences write.
type resource struct {
	// name is the kind (apply bodies name it), and the first part of the
	// names of the resource's sequences: "Deployment/lifecycle".
	name       string
	apiVersion string
	// via names the client the sequences use when it is not the typed
	// one: "dynamic" (every sequence) or "metadata" (the metadata
	// sequence only); see clients_test.go.
	via string
	// object returns a valid object named name (labels app=semantics).
	object func(name string) runtime.Object
	client func(f *fixture.Fixture, ns string) *client
	// spec is the field the sequences change as "the spec" (a value the
	// server lets change, which the resource's strategy counts as a spec
	// change, if it counts any); status, the field they change as "the
	// status", nil for a resource without one (the sequences then write
	// /status with merge patches: its typed client has no UpdateStatus).
	spec, status *field
}

// field is a field of an object, by its path in the object's JSON, and the
// i-th value the sequences give it.
type field struct {
	path  []string
	value func(i int) any
}

// appLabels returns the labels of every object, its pod template and its
// selector: a new map each time, as the sequences change objects' labels.
func appLabels() map[string]string { return map[string]string{"app": "semantics"} }

func podSpec() corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/c:1"}}}
}

func podTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: appLabels()}, Spec: podSpec()}
}

func objectMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Labels: appLabels()}
}

func int64Values(i int) any { return int64(i) }
func stringValues(prefix string) func(int) any {
	return func(i int) any { return fmt.Sprintf("%s%d", prefix, i) }
}

// observedGeneration is the status field of the workload controllers.
var observedGeneration = &field{path: []string{"status", "observedGeneration"}, value: int64Values}

// resources are the types the suite covers.
var resources = []resource{{
	name: "Deployment", apiVersion: "apps/v1",
	object: func(name string) runtime.Object {
		return &appsv1.Deployment{ObjectMeta: objectMeta(name), Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: appLabels()}, Template: podTemplate(),
		}}
	},
	client: func(f *fixture.Fixture, ns string) *client { return adapt(f.Kube().AppsV1().Deployments(ns)) },
	spec:   &field{path: []string{"spec", "minReadySeconds"}, value: int64Values},
	status: observedGeneration,
}, {
	name: "ReplicaSet", apiVersion: "apps/v1",
	object: func(name string) runtime.Object {
		return &appsv1.ReplicaSet{ObjectMeta: objectMeta(name), Spec: appsv1.ReplicaSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: appLabels()}, Template: podTemplate(),
		}}
	},
	client: func(f *fixture.Fixture, ns string) *client { return adapt(f.Kube().AppsV1().ReplicaSets(ns)) },
	spec:   &field{path: []string{"spec", "minReadySeconds"}, value: int64Values},
	status: observedGeneration,
}, {
	name: "StatefulSet", apiVersion: "apps/v1",
	object: func(name string) runtime.Object {
		return &appsv1.StatefulSet{ObjectMeta: objectMeta(name), Spec: appsv1.StatefulSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: appLabels()}, Template: podTemplate(),
		}}
	},
	client: func(f *fixture.Fixture, ns string) *client { return adapt(f.Kube().AppsV1().StatefulSets(ns)) },
	spec:   &field{path: []string{"spec", "minReadySeconds"}, value: int64Values},
	status: observedGeneration,
}, {
	name: "Job", apiVersion: "batch/v1",
	object: func(name string) runtime.Object {
		tpl := podTemplate()
		tpl.Spec.RestartPolicy = corev1.RestartPolicyNever
		// Parallelism as the server defaults it, so that the spec field
		// starts equal on both sides.
		return &batchv1.Job{ObjectMeta: objectMeta(name), Spec: batchv1.JobSpec{Parallelism: ptr.To[int32](1), Template: tpl}}
	},
	client: func(f *fixture.Fixture, ns string) *client { return adapt(f.Kube().BatchV1().Jobs(ns)) },
	// Parallelism defaults to 1: the values start at 2.
	spec:   &field{path: []string{"spec", "parallelism"}, value: func(i int) any { return int64(i + 1) }},
	status: &field{path: []string{"status", "active"}, value: int64Values},
}, {
	name: "Pod", apiVersion: "v1",
	object: func(name string) runtime.Object {
		return &corev1.Pod{ObjectMeta: objectMeta(name), Spec: podSpec()}
	},
	client: func(f *fixture.Fixture, ns string) *client { return adapt(f.Kube().CoreV1().Pods(ns)) },
	// Most of a Pod's spec is immutable; its active deadline may be set,
	// then only lowered.
	spec:   &field{path: []string{"spec", "activeDeadlineSeconds"}, value: func(i int) any { return int64(1000 - i) }},
	status: &field{path: []string{"status", "message"}, value: stringValues("m")},
}, {
	name: "Service", apiVersion: "v1",
	object: func(name string) runtime.Object {
		// A load balancer: its status (the load balancer's address) is
		// valid on no other type.
		return &corev1.Service{ObjectMeta: objectMeta(name), Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeLoadBalancer,
			Selector: appLabels(),
			Ports:    []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}},
		}}
	},
	client: func(f *fixture.Fixture, ns string) *client { return adapt(f.Kube().CoreV1().Services(ns)) },
	spec:   &field{path: []string{"spec", "selector", "tier"}, value: stringValues("t")},
	status: &field{path: []string{"status", "loadBalancer"}, value: func(i int) any {
		return map[string]any{"ingress": []any{map[string]any{"hostname": fmt.Sprintf("h%d.example", i)}}}
	}},
}, {
	name: "ConfigMap", apiVersion: "v1",
	object: func(name string) runtime.Object {
		return &corev1.ConfigMap{ObjectMeta: objectMeta(name), Data: map[string]string{"k": "v0"}}
	},
	client: func(f *fixture.Fixture, ns string) *client { return adapt(f.Kube().CoreV1().ConfigMaps(ns)) },
	spec:   &field{path: []string{"data", "k"}, value: stringValues("v")},
}, {
	name: "Secret", apiVersion: "v1",
	object: func(name string) runtime.Object {
		return &corev1.Secret{ObjectMeta: objectMeta(name), Data: map[string][]byte{"k": []byte("v0")}}
	},
	client: func(f *fixture.Fixture, ns string) *client { return adapt(f.Kube().CoreV1().Secrets(ns)) },
	spec: &field{path: []string{"data", "k"}, value: func(i int) any {
		return base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "v%d", i))
	}},
}, {
	name: "Foo", apiVersion: foov1alpha1.SchemeGroupVersion.String(),
	object: func(name string) runtime.Object {
		return &foov1alpha1.Foo{ObjectMeta: objectMeta(name), Spec: foov1alpha1.FooSpec{DeploymentName: "d0"}}
	},
	client: func(f *fixture.Fixture, ns string) *client {
		return adapt(foos.Client(f).SamplecontrollerV1alpha1().Foos(ns))
	},
	spec:   &field{path: []string{"spec", "deploymentName"}, value: stringValues("d")},
	status: &field{path: []string{"status", "availableReplicas"}, value: int64Values},
}, {
	name: "Gateway", apiVersion: gatewayv1alpha1.SchemeGroupVersion.String(),
	object: func(name string) runtime.Object {
		return &gatewayv1alpha1.Gateway{ObjectMeta: objectMeta(name), Spec: gatewayv1alpha1.GatewaySpec{ClassName: "c0"}}
	},
	client: func(f *fixture.Fixture, ns string) *client {
		return adapt(gateways.Client(f).GatewayV1alpha1().Gateways(ns))
	},
	spec: &field{path: []string{"spec", "className"}, value: stringValues("c")},
}, {
	// The same resources through the dynamic and the metadata clients
	// (clients_test.go).
	name: "Deployment", apiVersion: "apps/v1", via: "dynamic",
	object: deploymentObject,
	client: func(f *fixture.Fixture, ns string) *client {
		return dynamicClient[*appsv1.Deployment](f, appsv1.SchemeGroupVersion.WithResource("deployments"), ns)
	},
	spec:   &field{path: []string{"spec", "minReadySeconds"}, value: int64Values},
	status: observedGeneration,
}, {
	name: "Foo", apiVersion: foov1alpha1.SchemeGroupVersion.String(), via: "dynamic",
	object: fooObject,
	client: func(f *fixture.Fixture, ns string) *client {
		return dynamicClient[*foov1alpha1.Foo](f, foov1alpha1.SchemeGroupVersion.WithResource("foos"), ns)
	},
	spec:   &field{path: []string{"spec", "deploymentName"}, value: stringValues("d")},
	status: &field{path: []string{"status", "availableReplicas"}, value: int64Values},
}, {
	name: "Gateway", apiVersion: gatewayv1alpha1.SchemeGroupVersion.String(), via: "dynamic",
	object: gatewayObject,
	client: func(f *fixture.Fixture, ns string) *client {
		return dynamicClient[*gatewayv1alpha1.Gateway](f, gatewayv1alpha1.SchemeGroupVersion.WithResource("gateways"), ns)
	},
	spec: &field{path: []string{"spec", "className"}, value: stringValues("c")},
}, {
	name: "Deployment", apiVersion: "apps/v1", via: "metadata",
	object: deploymentObject,
	client: func(f *fixture.Fixture, ns string) *client {
		return metadataClient(f, appsv1.SchemeGroupVersion.WithResource("deployments"), ns, adapt(f.Kube().AppsV1().Deployments(ns)))
	},
	spec: &field{path: []string{"spec", "minReadySeconds"}, value: int64Values},
}, {
	name: "Foo", apiVersion: foov1alpha1.SchemeGroupVersion.String(), via: "metadata",
	object: fooObject,
	client: func(f *fixture.Fixture, ns string) *client {
		return metadataClient(f, foov1alpha1.SchemeGroupVersion.WithResource("foos"), ns, adapt(foos.Client(f).SamplecontrollerV1alpha1().Foos(ns)))
	},
	spec: &field{path: []string{"spec", "deploymentName"}, value: stringValues("d")},
}}

func deploymentObject(name string) runtime.Object {
	return &appsv1.Deployment{ObjectMeta: objectMeta(name), Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: appLabels()}, Template: podTemplate(),
	}}
}

func fooObject(name string) runtime.Object {
	return &foov1alpha1.Foo{ObjectMeta: objectMeta(name), Spec: foov1alpha1.FooSpec{DeploymentName: "d0"}}
}

func gatewayObject(name string) runtime.Object {
	return &gatewayv1alpha1.Gateway{ObjectMeta: objectMeta(name), Spec: gatewayv1alpha1.GatewaySpec{ClassName: "c0"}}
}

// label names the resource in the sequences' names: its kind, and the
// client when it is not the typed one ("Deployment (dynamic)").
func (r resource) label() string {
	if r.via == "" {
		return r.name
	}
	return r.name + " (" + r.via + ")"
}

// typedClient is what client-go's generated typed clients (and their
// fakes) have in common.
type typedClient[T runtime.Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// collectionClient is a typed client of a resource with delete-collection
// (Services have none).
type collectionClient interface {
	DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error
}

// statusClient is a typed client of a type with a status.
type statusClient[T runtime.Object] interface {
	UpdateStatus(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// client is a typed client seen through runtime.Object, so that one
// sequence runs on every resource.
type client struct {
	get              func(ctx context.Context, name string) (runtime.Object, error)
	create           func(ctx context.Context, obj runtime.Object) (runtime.Object, error)
	update           func(ctx context.Context, obj runtime.Object) (runtime.Object, error)
	updateStatus     func(ctx context.Context, obj runtime.Object) (runtime.Object, error)
	patch            func(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (runtime.Object, error)
	delete           func(ctx context.Context, name string, opts metav1.DeleteOptions) error
	deleteCollection func(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error // nil without DeleteCollection
}

func adapt[T runtime.Object](c typedClient[T]) *client {
	out := &client{
		get: func(ctx context.Context, name string) (runtime.Object, error) {
			return nilIfErr(c.Get(ctx, name, metav1.GetOptions{}))
		},
		create: func(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
			return nilIfErr(c.Create(ctx, obj.(T), metav1.CreateOptions{}))
		},
		update: func(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
			return nilIfErr(c.Update(ctx, obj.(T), metav1.UpdateOptions{}))
		},
		patch: func(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (runtime.Object, error) {
			return nilIfErr(c.Patch(ctx, name, pt, data, opts, subresources...))
		},
		delete: c.Delete,
	}
	if cc, ok := c.(collectionClient); ok {
		out.deleteCollection = cc.DeleteCollection
	}
	if sc, ok := c.(statusClient[T]); ok {
		out.updateStatus = func(ctx context.Context, obj runtime.Object) (runtime.Object, error) {
			return nilIfErr(sc.UpdateStatus(ctx, obj.(T), metav1.UpdateOptions{}))
		}
	}
	return out
}

// nilIfErr drops the typed client's result on an error: it is then an
// empty object, not the stored one.
func nilIfErr[T runtime.Object](obj T, err error) (runtime.Object, error) {
	if err != nil {
		return nil, err
	}
	return obj, nil
}
