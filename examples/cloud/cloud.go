// Package cloud shows calls outside Kubernetes in rows: a controller that
// gives each Service of type LoadBalancer a load balancer of a cloud, a
// fake cloud that records its calls with records.Call, and a row parameter
// (fixture.Param) that gives one row a cloud without an external IP.
package cloud

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

// Cloud is what the controller needs of a cloud.
type Cloud interface {
	// EnsureLoadBalancer makes sure the Service has a load balancer and
	// returns its IP ("" while the cloud has none to give).
	EnsureLoadBalancer(ctx context.Context, svc *corev1.Service) (ip string, err error)
}

// Controller gives each Service of type LoadBalancer a load balancer and
// writes its IP into the Service's status.
type Controller struct {
	kube     kubernetes.Interface
	services corelisters.ServiceLister
	cloud    Cloud
	// Swallows hides the cloud's errors: the mistake the fault sweep finds.
	Swallows bool
}

// New builds a Controller.
func New(kube kubernetes.Interface, services corelisters.ServiceLister, cloud Cloud) *Controller {
	return &Controller{kube: kube, services: services, cloud: cloud}
}

// ErrNoIP is the controller's error while the cloud has no IP to give: the
// key is retried.
var ErrNoIP = errors.New("the cloud has no external IP for the load balancer yet")

// Sync ensures the load balancer of the Service key names.
func (c *Controller) Sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	svc, err := c.services.Services(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer || len(svc.Status.LoadBalancer.Ingress) > 0 {
		return nil // nothing to do: no call to the cloud either
	}
	ip, err := c.cloud.EnsureLoadBalancer(ctx, svc)
	switch {
	case err != nil && c.Swallows:
		return nil
	case err != nil:
		return fmt.Errorf("ensuring the load balancer of %s: %w", key, err)
	case ip == "":
		return ErrNoIP // not an ingress of "<nil>", which the server refuses
	}
	svc = svc.DeepCopy()
	svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	_, err = c.kube.CoreV1().Services(ns).UpdateStatus(ctx, svc, metav1.UpdateOptions{})
	return err
}

// FakeCloud is a cloud for tests: it keeps a load balancer per Service and
// records each call in the running sync's result.
type FakeCloud struct {
	f   *fixture.Fixture
	ip  string
	lbs map[string]bool
}

// ErrThrottled is what the fake cloud may answer any call with.
var ErrThrottled = errors.New("cloud: request throttled")

// NewFakeCloud returns a cloud that gives load balancers the IP ip ("": none).
func NewFakeCloud(f *fixture.Fixture, ip string) *FakeCloud {
	return &FakeCloud{f: f, ip: ip, lbs: map[string]bool{}}
}

// EnsureLoadBalancer records the call, then makes the load balancer.
func (c *FakeCloud) EnsureLoadBalancer(_ context.Context, svc *corev1.Service) (string, error) {
	key := svc.Namespace + "/" + svc.Name
	call := records.Call{Service: "cloud", Method: "EnsureLoadBalancer", Args: key, Changed: !c.lbs[key]}
	if err := c.f.Call(call, ErrThrottled); err != nil {
		return "", err
	}
	c.lbs[key] = true
	return c.ip, nil
}
