// Package world is the engine under a fixture: the stored world of one
// test and every way to it.
//
// A World is made by New from what the fixture's options say (Config):
// the registered clientsets (client-go's fakes, or a real API server's
// clients in parity mode), the backend that holds the objects and
// answers requests (backend.go: the server model of internal/apiserver
// over the fakes' trackers by default, the bare fakes, or a real server),
// and the seeds, handed to the trackers and indexers lazily (seed.go).
// Every request of every client takes one path (clientset.go: react):
// recorded in the request log, the test's reactors, then the backend.
// The changes the model makes reach the informers the controller asked
// for as watch events, through their handlers (deliver.go, refresh.go,
// internal/feed); the dynamic, metadata, discovery and scale clients and
// their informers are built on the same path (dynamic.go, metadata.go,
// discovery.go, scale.go, informersource.go).
//
// face.go is what the fixture asks of a world, in the order a test meets
// it. The package never imports fixture: the public types it needs have
// their own plain forms here (Parts, CustomResource, Admission, Server,
// EventRecord), which the fixture fills.
package world
