// Package ctrlruntime runs controller-runtime Reconcilers on ctrltest's
// world: the fixture's server model behind every request, recorded
// requests, golden files, declarative cases, and every check of a
// table row (idempotency and convergence, the cache-mutation check, the
// fault, stale-cache and event-order sweeps).
//
//	var WebApps = fixture.WithTypes(webappv1.AddToScheme) // a kubebuilder API: no clientset needed
//
//	func TestReconcile(t *testing.T) {
//		fixture.Table[string]{
//			Options: []fixture.Option{WebApps},
//			Wire: ctrlruntime.Wire(func(env *ctrlruntime.Env) reconcile.Reconciler {
//				r := &Reconciler{Client: env.Client, Scheme: env.Scheme, Recorder: env.Recorder}
//				if err := r.SetupWithManager(env.Manager); err != nil { // its watches, for the sweeps
//					env.F.T().Fatal(err)
//				}
//				return r
//			}),
//			Checks: fixture.Checks{Golden: fixture.On},
//			Rows: []fixture.Row{{
//				Name:         "a new WebApp waits for its Deployment",
//				Objects:      []runtime.Object{app},
//				Key:          "default/web", // the reconcile.Request
//				WantReturned: "requeue after 10s",
//			}},
//		}.Run(t)
//	}
//
// # The client
//
// [NewClient] is a controller-runtime client.WithWatch whose every request
// is a client-go testing action served by [fixture.Fixture.Invoke]: recorded
// as the fixture's actions, subject to the test's reactors and induced
// failures, answered by the server model. It serves typed objects,
// *unstructured.Unstructured and *metav1.PartialObjectMetadata (and their
// lists), label selectors, field selectors on metadata.name,
// metadata.namespace and indexes registered with [WithIndex] (or the
// manager's field indexer), every patch type, server-side apply, Status()
// and SubResource(name). With [Cached] it reads as the manager's client
// does, from the informers' view of the fixture (deep copies, unless
// [UnsafeDisableDeepCopy]; the view catches up between syncs, not within
// one), and its reads are not recorded.
//
// # Reconciles
//
// [Env] holds the manager's pieces for one fixture. [Wire] adapts a
// Reconciler to fixture's own rows and cases (fixture.Table[string],
// fixture.Cases[string]), keyed by request ("namespace/name", [Key]): each
// reconcile reports its reconcile.Result as the sync's Result.Returned
// (fixture.Row.WantReturned, FormatResult's line; "" for the zero result),
// and [Terminal] checks terminal errors (fixture.Row.WantErr). [Reconcile]
// runs one reconcile; [SyncFunc] turns a Reconciler into a fixture sync
// handler.
//
// # Watches
//
// Env.Manager is a manager.Manager served by the Env, on which a
// reconciler's SetupWithManager runs unchanged. When the wire function
// passed to [Wire] runs SetupWithManager(env.Manager), Wire connects the
// watches of the controllers it built (For, Owns, Watches, predicates) to
// the fixture: each becomes an event handler on the fixture's informer of
// its kind, and the requests it enqueues are keys on the fixture's
// work-queue spy (fixture.Queue[string]). The stale-cache sweep then sees
// what re-queues a key (does the reconciler recover once the caches catch
// up?) and the event-order sweep what each order of events enqueues;
// without it both say they could not judge ("no event handler").
// [Manager.Watches] instead delivers object events to those sources by
// hand and returns the requests they enqueue, synchronously: no manager
// runs and no reconcile is called.
//
// # Limits
//
// A table wired by [Wire] runs on a real API server too (the parity module),
// where Env.Client is controller-runtime's own client (types registered
// with fixture.WithTypes need their CRD there). controller-runtime's
// opt-in read-your-writes consistency is not modelled. Watches gives the
// controllers plain work queues (no metrics, no priorities), which it
// reads at once, and Wire the fixture's spy; their workers never run.
// Sources other than kinds (source.Channel, source.Func) are started but
// not fed. On a real API server Wire connects no watch.
//
// # When not to use
//
// For a webhook, a multi-cluster manager or the manager's own behaviour
// (leader election, metrics), use envtest: this package tests what a
// Reconciler does to the world and what its watches enqueue.
package ctrlruntime
