package records

import (
	"fmt"

	"github.com/ctrltest/ctrltest/actions"
)

// Call is a call a controller made outside Kubernetes (to a cloud, a DNS
// provider, a webhook), as the test's fake records it with
// fixture.Fixture.Call (see docs/calls.md).
type Call struct {
	// Service names what was called: "cloud", "dns".
	Service string
	// Method names the call: "EnsureLoadBalancer".
	Method string
	// Args are its arguments as the fake formats them: "default/web".
	Args string
	// Read marks a call that changes nothing by its nature (a Get),
	// Changed one that changed the outside world, which keeps the
	// idempotency check syncing; a call that is neither is redundant.
	Read, Changed bool
}

// String formats the call as "service.Method(args)".
func (c Call) String() string { return fmt.Sprintf("%s.%s(%s)", c.Service, c.Method, c.Args) }

// Refusal is a write the server refused, and its answer.
type Refusal struct {
	Action actions.Action
	Err    error
}

// Warning is a warning the server gave the client of a write, with its
// text as the server sends it.
type Warning struct {
	Action actions.Action
	Text   string
}
