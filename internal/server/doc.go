// Package server is the real-server backend of a fixture (parity mode,
// adapter.WithServer): the fixture's share of a kube-apiserver in
// namespaces of its own, its seeds created through the API, the requests
// of the recorded clients mapped back to the fixture's names, and the
// server's answers judged for no-op writes and refusals. The world it
// serves is a Host (internal/world). Its failures are errors.
package server
