package kube_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
)

// The server's defaults and its verdict on a write of a Service's status,
// as kube.Server() gives them to a fixture (in a test:
// fixture.New(t, kube.Server(), ...)).
func ExampleValidate() {
	old := service("web")
	old.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
	old.ResourceVersion = "1"
	kube.Default(old)
	p := old.Spec.Ports[0]
	fmt.Println(p.Protocol, p.TargetPort.IntValue(), old.Spec.SessionAffinity)

	updated := old.DeepCopy()
	updated.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "<nil>"}}
	kube.Default(updated) // the server decodes the request: ipMode VIP
	for _, err := range kube.Validate(fixture.Validation{Object: updated, Old: old, Subresource: "status"}) {
		fmt.Println(err)
	}
	// Output:
	// TCP 80 None
	// status.loadBalancer.ingress[0].ip: Invalid value: "<nil>": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)
}
