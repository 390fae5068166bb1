// Package parity runs ctrltest's rows against a real kube-apiserver, to show
// where client-go's fakes differ from a server (issue 7).
//
// It lives in its own module so that its dependencies (a server build, its
// process management) never burden users of the core packages.
//
// This is the first step: Start runs etcd and kube-apiserver (built by
// hack/parity-binaries.sh) on 127.0.0.1 and Stop ends them; the processes
// also die with the test binary, even when it is interrupted. Running rows,
// recording the controller's requests and the parity report are to come.
package parity
