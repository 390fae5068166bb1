package records

import (
	"fmt"

	"github.com/ctrltest/ctrltest/actions"
)

// Call is a call a controller made outside Kubernetes (to a cloud, a DNS
// provider, a registry, a webhook), as the fake the test wires in records
// it with fixture.Fixture.Call. A sync's calls are in fixture.Result.Calls,
// in order, beside its requests; fixture.Row.WantCalls expects them (by
// Service, Method and Args), golden files and -v show them.
type Call struct {
	// Service names what was called: "cloud", "dns".
	Service string
	// Method names the call: "EnsureLoadBalancer".
	Method string
	// Args are its arguments as the fake formats them: "default/web".
	Args string
	// Read marks a call that changes nothing by its nature (a Get, a
	// List). Changed marks a call that changed the outside world: the
	// idempotency check keeps syncing while a sync's calls change it, as
	// while its writes change the stored world, and lists a call that is
	// neither a read nor a change as redundant, as a write that changed
	// nothing is.
	Read, Changed bool
}

// String formats the call as "service.Method(args)".
func (c Call) String() string { return fmt.Sprintf("%s.%s(%s)", c.Service, c.Method, c.Args) }

// Refusal is a write the server refused, and its answer.
type Refusal struct {
	Action actions.Action
	Err    error
}

// Warning is a warning the server gave the client of a write: the write,
// and the warning's text as the server sends it (a client prints it after
// "Warning: ").
type Warning struct {
	Action actions.Action
	Text   string
}
