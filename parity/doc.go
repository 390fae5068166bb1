// Package parity runs ctrltest's rows against a real kube-apiserver, to show
// where client-go's fakes differ from a server (issue 7).
//
// It lives in its own module so that its dependencies (a server build, its
// process management) never burden users of the core packages.
//
// Two building blocks exist so far. Start runs etcd and kube-apiserver
// (built by hack/parity-binaries.sh) on 127.0.0.1 and Stop ends them; the
// processes also die with the test binary, even when it is interrupted.
// Recorder records the requests made through a rest.Config as the same
// actions.Action values client-go's fakes record, parsed by the API server's
// own request-info parser. Running rows on the server and the parity report
// are to come.
package parity
