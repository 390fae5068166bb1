package servicecontroller

import (
	"context"
	"errors"
	"net"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	cloudprovider "k8s.io/cloud-provider"
	fakecloud "k8s.io/cloud-provider/fake"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

// Cloud is k8s.io/cloud-provider/fake's Cloud, the fake upstream's own
// tests use, with its load-balancer calls recorded in the running sync's
// result (records.Call): EnsureLoadBalancer, UpdateLoadBalancer,
// EnsureLoadBalancerDeleted and GetLoadBalancer, each as
// cloud.<Method>(<namespace>/<name>), with the names of the nodes for the
// two that take them.
//
// The fake keeps its balancers by name (Balancers) but answers
// GetLoadBalancer with one flag for all (Exists); Cloud keeps the flag
// true from an EnsureLoadBalancer to an EnsureLoadBalancerDeleted, so that
// a second sync sees what the first left, as on a cloud. A row holds one
// Service with a load balancer, so one flag is enough.
//
// A call that fails (the fake's Err, or the fault the fault sweep
// injects) changes nothing: Cloud returns the error before the fake acts.
type Cloud struct {
	*fakecloud.Cloud
	f *fixture.Fixture
}

// ErrUnavailable is what the cloud may answer any load-balancer call
// with: the fault sweep fails each call once with it.
var ErrUnavailable = errors.New("cloud: 503 Service Unavailable")

// NewCloud returns the fake cloud of a row: load balancers get the
// ingress IP ip (nil: the fake's "<nil>") with the IP mode mode (nil:
// none), the balancers existing are there already (see Balancer), and
// err, when not nil, fails every load-balancer call (the fake's Err).
func NewCloud(f *fixture.Fixture, ip net.IP, mode *corev1.LoadBalancerIPMode, existing []fakecloud.Balancer, err error) *Cloud {
	c := &Cloud{Cloud: &fakecloud.Cloud{ExternalIP: ip, BalancerIPMode: mode, Err: err}, f: f}
	c.Region = "us-central"
	c.Balancers = map[string]fakecloud.Balancer{}
	for _, b := range existing {
		b.Region = c.Region
		c.Balancers[b.Name] = b
		c.Exists = true
	}
	return c
}

// Balancer is the load balancer the fake cloud holds for svc, as its
// EnsureLoadBalancer makes it with nodes.
func Balancer(svc *corev1.Service, nodes ...*corev1.Node) fakecloud.Balancer {
	return fakecloud.Balancer{Name: cloudprovider.DefaultLoadBalancerName(svc), LoadBalancerIP: svc.Spec.LoadBalancerIP, Ports: svc.Spec.Ports, Hosts: nodes}
}

var _ cloudprovider.LoadBalancer = (*Cloud)(nil)

// LoadBalancer returns c itself, so that the controller's calls go
// through the recording methods below (the fake's own LoadBalancer
// returns the fake).
func (c *Cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) {
	return c, !c.DisableLoadBalancers
}

// call records the call and returns the error to answer it with: the
// fault sweep's, else the fake's Err.
func (c *Cloud) call(method string, svc *corev1.Service, nodes []*corev1.Node, read, changed bool) error {
	args := svc.Namespace + "/" + svc.Name
	if nodes != nil || method == "EnsureLoadBalancer" || method == "UpdateLoadBalancer" {
		args += " " + nodeList(nodes)
	}
	if err := c.f.Call(records.Call{Service: "cloud", Method: method, Args: args, Read: read, Changed: changed && c.Err == nil}, ErrUnavailable); err != nil {
		return err
	}
	return c.Err
}

// nodeList formats the nodes' names: "[node-1 node-2]".
func nodeList(nodes []*corev1.Node) string {
	names := make([]string, len(nodes))
	for i, n := range nodes {
		names[i] = n.Name
	}
	slices.Sort(names)
	return "[" + strings.Join(names, " ") + "]"
}

// GetLoadBalancer records a read, then asks the fake.
func (c *Cloud) GetLoadBalancer(ctx context.Context, clusterName string, svc *corev1.Service) (*corev1.LoadBalancerStatus, bool, error) {
	if err := c.call("GetLoadBalancer", svc, nil, true, false); err != nil {
		return nil, false, err
	}
	return c.Cloud.GetLoadBalancer(ctx, clusterName, svc)
}

// EnsureLoadBalancer records the call, changed when the balancer is new or
// differs from the one the cloud holds (IP, ports, nodes), then lets the
// fake make it.
func (c *Cloud) EnsureLoadBalancer(ctx context.Context, clusterName string, svc *corev1.Service, nodes []*corev1.Node) (*corev1.LoadBalancerStatus, error) {
	name := c.GetLoadBalancerName(ctx, clusterName, svc)
	old, ok := c.Balancers[name]
	want := fakecloud.Balancer{Name: name, Region: c.Region, LoadBalancerIP: svc.Spec.LoadBalancerIP, Ports: svc.Spec.Ports, Hosts: nodes}
	changed := !ok || !c.Exists || !sameBalancer(old, want)
	if err := c.call("EnsureLoadBalancer", svc, nodes, false, changed); err != nil {
		return nil, err
	}
	status, err := c.Cloud.EnsureLoadBalancer(ctx, clusterName, svc, nodes)
	c.Exists = true
	return status, err
}

// UpdateLoadBalancer records the call, changed when the nodes differ from
// the balancer's, then lets the fake record it and keeps the nodes.
func (c *Cloud) UpdateLoadBalancer(ctx context.Context, clusterName string, svc *corev1.Service, nodes []*corev1.Node) error {
	name := c.GetLoadBalancerName(ctx, clusterName, svc)
	old, ok := c.Balancers[name]
	changed := !ok || nodeList(old.Hosts) != nodeList(nodes)
	if err := c.call("UpdateLoadBalancer", svc, nodes, false, changed); err != nil {
		return err
	}
	if ok {
		old.Hosts = nodes
		c.Balancers[name] = old
	}
	return c.Cloud.UpdateLoadBalancer(ctx, clusterName, svc, nodes)
}

// EnsureLoadBalancerDeleted records the call, changed when a balancer
// existed, then lets the fake record it and forgets the balancer.
func (c *Cloud) EnsureLoadBalancerDeleted(ctx context.Context, clusterName string, svc *corev1.Service) error {
	if err := c.call("EnsureLoadBalancerDeleted", svc, nil, false, c.Exists); err != nil {
		return err
	}
	delete(c.Balancers, c.GetLoadBalancerName(ctx, clusterName, svc))
	c.Exists = false
	return c.Cloud.EnsureLoadBalancerDeleted(ctx, clusterName, svc)
}

// sameBalancer reports whether two balancers have one IP, the same ports
// and the same nodes (by name).
func sameBalancer(a, b fakecloud.Balancer) bool {
	return a.LoadBalancerIP == b.LoadBalancerIP && reflect.DeepEqual(a.Ports, b.Ports) && nodeList(a.Hosts) == nodeList(b.Hosts)
}
