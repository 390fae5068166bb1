// Package clients holds a fixture's clients other than the registered
// clientsets: dynamic, metadata, discovery and scale. Each request becomes
// the client-go testing action a typed fake makes and goes through the
// world's one request path (Host.Invoke), and the typed answer is
// converted to the client's form. On a real server the dynamic and
// metadata clients are client-go's own, on the recorded configuration.
package clients
