// Package servicecontroller tests the cloud-provider service controller
// (k8s.io/cloud-provider v0.37.2, controllers/service: the controller that
// gives Services of type LoadBalancer a cloud load balancer) with
// ctrltest's table rows: upstream's controller_test.go ported, calls to
// the cloud recorded with records.Call and expected by Row.WantCalls, each
// row's cloud set up by fixture.Param, every default check on, and
// kube-apiserver's defaulting and validation (kube.Server(), the kube
// module) on seeds and writes. It is the port issue 37 asks for: no row
// uses Fixture.SetReturned, and no table has one row.
//
// # Wiring (wire.go)
//
// The controller is built by its own constructor, service.New, on the
// fixture's kube clientset and its Service and Node informers, as the
// cloud-controller-manager builds it. What its Run adds is added in the
// wiring: an event broadcaster recording to the fixture's clientset and
// its recorder (Run makes both; New leaves them nil). The two work queues
// New makes are shut down and replaced by the fixture's spies: the Service
// queue by fixture.Queue, the Node queue by fixture.QueueNamed("nodes"),
// whose handler (fixture.Handle, NodeSync) is what the node worker runs
// (syncNodes, then the Services to retry back on the Service queue). The
// sync handler is the unexported syncService. internal/reach is the one
// place that reads and writes the controller's unexported fields and links
// its methods (as examples/kcm's internal/reach does); its tests fail,
// naming the field, when a bump of k8s.io/cloud-provider moves one.
//
// # The cloud (cloud.go)
//
// Cloud wraps k8s.io/cloud-provider/fake's Cloud, the fake upstream's own
// tests use, and records each load-balancer call in the running sync's
// result: cloud.EnsureLoadBalancer(default/web [node-1]),
// cloud.UpdateLoadBalancer(...), cloud.EnsureLoadBalancerDeleted(default/web)
// and cloud.GetLoadBalancer(default/web) (Read). Changed says whether the
// call changed the cloud: a new load balancer, or one with another IP,
// ports or nodes; a delete of one that existed. Each call may fail with
// ErrUnavailable, which the fault sweep injects once into each. The fake
// answers GetLoadBalancer with one flag (Exists) whatever the Service;
// Cloud keeps it true from an ensure to a delete, so that a second sync
// sees what the first did.
//
// A row gives its own cloud and controller state with parameters
// (fixture.NewParam), read by the wiring: ExternalIP (nil: none),
// IPMode, Existing (the load balancers already there: upstream's
// lbExists), CloudErr (the fake's Err, failing every call) and Synced
// (the Services the controller synced before: its cache, which it uses
// when a Service is gone or came back with another uid).
//
// # Rows (service_test.go)
//
// Each row's comment names the upstream test and case it ports:
//
//   - TestSyncLoadBalancerIfNeeded, all 8 cases: a ClusterIP Service; UDP,
//     TCP (with no node: the UnAvailableLoadBalancer warning) and SCTP
//     Services that want a load balancer; a loadBalancerClass (another
//     controller's); a Service changed from LoadBalancer to ClusterIP
//     that still has the finalizer; a deleted Service (its finalizer
//     removed, which deletes it; the status patch after it is NotFound,
//     ignored); a Service that has the finalizer already. Upstream counts
//     patches; the rows expect each patch's body, each event and each
//     cloud call.
//   - TestProcessServiceCreateOrUpdate "If Updating Loadbalancer IP": a
//     Service whose loadBalancerIP changed since the last sync; the cloud
//     moves the load balancer and the status follows.
//   - TestProcessServiceCreateOrUpdateK8sError, both cases: a conflict
//     and a NotFound on the status patch (row reactors).
//   - TestProcessServiceDeletion, all 3 cases: a Service never synced,
//     one the controller synced before and the cloud fails to delete, and
//     one it deletes (Services deleted without the finalizer: the key is
//     absent, the controller's cache remembers them, Synced).
//   - TestSyncService "if an invalid service name is synced":
//     TestInvalidKey (see Gaps).
//   - TestUpdateNodesInExternalLoadBalancer (one, none, one of three
//     Services with a load balancer) and TestNodeChangesForStableNodeSetEnabled
//     (excluded and tainted nodes are no hosts): 4 rows of the Node queue
//     (Queue: "nodes"), with one worker: with several, or several
//     Services with load balancers, the calls come in the order of a map.
//   - Beyond upstream: a Service deleted and re-created under its name
//     (the old load balancer deleted, a new one ensured), the cloud
//     failing EnsureLoadBalancer, implementing it elsewhere
//     (cloudprovider.ImplementedElsewhere: the sync succeeds without a
//     status) and asking to be called later (api.RetryError, returned
//     wrapped so that the worker can re-queue after its delay), a cloud
//     without an external IP, and a cloud that gives no IP mode.
//
// Not ported: the pure functions' tests (TestNeedsCleanup,
// TestNeedsUpdate, TestNodesNotEqual, the node predicates,
// TestServiceCache, and TestAddFinalizer, TestRemoveFinalizer and
// TestPatchStatus, whose patches the rows expect whole), tests of the
// workers and their timing (TestSlowNodeSync, TestServiceQueueDelay), and
// TestNodeChangesInExternalLoadBalancer's several-Service sequences of
// node changes.
//
// # What the checks found
//
// Every default check runs on every row: idempotency and convergence, the
// cache-mutation check, the fault sweep (each patch and each cloud call
// failed once), the stale-cache sweep and the event-order sweep. What they
// found, and how each row declares it:
//
//   - kubernetes/kubernetes#111643, the finalizer removal by a patch from
//     the cached object. removeFinalizer patches with a strategic merge
//     patch computed from the cached Service (servicehelper.PatchService);
//     when the cache shows no other finalizer the patch is
//     {"metadata":{"finalizers":null}}, which removes every finalizer. The
//     stale-cache sweep's other-writer lag adds a finalizer the cache does
//     not show yet, and the patch removes it: a lost update, on the row
//     "service with finalizer that no longer wants LB", which declares it
//     (Row.KnownDamage): a fix upstream, or another damage, fails the row.
//     (The deleted Service's row cannot show it: the sweep adds no
//     finalizer to an object being deleted.)
//   - The ingress IP "<nil>": fake.Cloud without an ExternalIP answers
//     EnsureLoadBalancer with ip net.IP(nil).String(), "<nil>", and
//     upstream's newController sets none, so every upstream row that
//     ensures a load balancer writes it into the status, and passes on
//     client-go's fakes (TestNilIPWithoutServer shows the store accepting
//     it). kube-apiserver refuses it (status.loadBalancer.ingress[0].ip:
//     Invalid value: "<nil>": must be a valid IP address): the row "a cloud
//     without an external IP" expects the 422 as its error (WantErr), and
//     its events (Ensured, then SyncLoadBalancerFailed). On a cluster that
//     Service's sync fails and is retried for ever. The other rows give the
//     cloud an IP (203.0.113.10).
//   - An upstream seed kube-apiserver refuses: "service with finalizer that
//     no longer wants LB" seeds a ClusterIP Service with an ingress, which
//     the server forbids ("may only be used when spec.type is
//     'LoadBalancer'") and clears when a Service's type leaves
//     LoadBalancer. The row seeds it without one, so the sync writes the
//     finalizer's removal and no status.
//   - The IP mode. fake.Cloud gives no ipMode; the server defaults it to
//     VIP; the controller compares the cloud's status with the stored one
//     as they are (servicehelper.LoadBalancerStatusEqual), so every later
//     sync patches the status again, a write that changes nothing. The row
//     "a cloud that gives no IP mode" shows it: its summary lists one
//     redundant write (the idempotency check, not Strict, passes it). The
//     other rows' cloud gives VIP, as real clouds do.
//   - Redundant calls: the controller calls EnsureLoadBalancer on every
//     sync of a Service that wants a load balancer, by design (upstream's
//     comment: "It is safe to just call EnsureLoadBalancer"); the rows'
//     summaries list it as one redundant call outside Kubernetes.
//   - GetLoadBalancer: upstream's fake does not record it, so upstream's
//     "no cloud calls" for a ClusterIP Service and a loadBalancerClass
//     could not see the read the controller makes; the rows expect it.
//   - The fault sweep: every failed patch and cloud call of a Service sync
//     returns an error, but a NotFound on the status patch, which the
//     controller ignores on purpose (the Service is gone). The node sync
//     returns nil when the cloud fails UpdateLoadBalancer and puts the
//     Service back on the Service queue instead; the sweep does not follow
//     a retry through another queue, so the node rows declare it
//     (Row.HandlesFault) and TestNodeRetry shows the re-queue.
//   - The event-order sweep finds nothing: the Service handlers enqueue
//     only Services that want a load balancer or need cleanup, have no
//     delete handler (cleanup follows the finalizer), and on a resync
//     enqueue only a Service that needs cleanup, as an update would.
//
// # Gaps
//
// fixture.Sync refuses a
// key with two slashes before the controller sees it, so upstream's
// invalid-key case is TestInvalidKey, which calls the handler directly.
// The fault sweep does not follow a retry through another queue (the node
// rows declare it), and Row.HandlesFault gets only the error for a call,
// not the call (the node rows' predicate tells a call by its zero
// Action). Row.WantCalls is ordered, with no unordered option: the node
// rows use one worker and one Service with a load balancer, whose calls
// come in one order.
//
// # Cost
//
// Measured on 2 cores shared with other work (load 11 to 15). The tests
// run in 0.6 to 2 s (24 rows with every check, and the known-findings
// tests), 6.7 s with -race. The build is what costs: kube.Server() brings
// k8s.io/kubernetes. With an empty build cache the test binary took 18 min
// wall, 8.8 min of CPU (7m18s user, 1m29s sys), and is 133 MB; the same
// module without kube.Server() 13.8 min wall, 7.4 min of CPU, 103 MB. So
// kube.Server() costs about 1.4 min of CPU (+19%) once, and 30 MB of
// binary; with the build cache warm, a rebuild after editing a test file
// took 20 s to 100 s wall (5 to 14 s of CPU) with or without it, within
// this machine's noise.
package servicecontroller
