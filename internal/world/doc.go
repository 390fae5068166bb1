// Package world is the engine under a fixture: the store of one test's
// world and the composition of its parts.
//
// A World is made by New from what the fixture's options say (Config):
// the registered clientsets (client-go's fakes, or a real API server's
// clients in parity mode), the backend that holds the objects and
// answers requests (backend.go: the server model of internal/apiserver
// over the fakes' trackers by default, the bare fakes, or a real server
// from internal/server), and the seeds, typed and checked once
// (seedWorld) and handed to the trackers and indexers lazily (seed.go).
// Every request of every client takes one path (clientset.go: react):
// recorded in the request log, the test's reactors, then the backend.
//
// Its parts see it through small Host interfaces it implements:
// internal/delivery feeds the informers the controller asked for with the
// model's changes (deliver.go, refresh.go); internal/clients holds the
// dynamic, metadata, discovery and scale clients, on the same request
// path (clients.go); internal/server is the real-server backend
// (serverbackend.go).
//
// face.go is what the fixture asks of a world, in the order a test meets
// it. The world returns its failures as errors, which the fixture
// reports, and holds no testing.TB: what no answer carries it keeps for
// the fixture to take (TakeReports, TakeEvents). The package never
// imports fixture: the public types it needs have plain forms
// (Registration, Server; records.CustomResource and records.Event), which
// the fixture fills, and small interfaces the fixture implements (Parts,
// Admission).
package world
