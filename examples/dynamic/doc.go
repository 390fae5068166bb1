// Package dynamic shows how to unit-test a controller written with
// client-go's dynamic and metadata clients and informers, which work on any
// resource, built-in or custom, without its generated clientset.
//
// The controller, TeamAnnotator, annotates the objects of one resource
// with the team that owns their namespace: it reads the objects through a
// dynamic informer (unstructured objects), the namespaces through a
// metadata informer (their metadata only, as PartialObjectMetadata), and
// writes a JSON merge patch through the dynamic client.
//
// The fixture serves the dynamic and metadata clients from the same world
// as the typed clientsets (fixture.Fixture.Dynamic, DynamicInformers,
// Metadata, MetadataInformers): seed objects are typed, as in every other
// test; the informers the controller asks for hold their unstructured and
// metadata forms; the controller's requests are recorded as a typed
// client's would be, so expectations are written with the actions package
// as usual; and the table's default checks (idempotency, cache mutation)
// apply. Plurals come from the registered clientsets: the Foo custom
// resource of the reference controller is "foos" because its generated
// clientset says so.
package dynamic
