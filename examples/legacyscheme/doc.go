// Package legacyscheme shows kube-apiserver's defaults of built-in types
// in a ctrltest fixture: kube.Server(), of the kube module, defaults every
// seed and write with the functions kube-apiserver runs when it decodes a
// request (k8s.io/kubernetes' legacyscheme.Scheme with the
// pkg/apis/<group>/install packages imported) and validates them with its
// registry strategies. The test shows what a Deployment a controller
// writes looks like once the server has defaulted it.
//
// It is a module of its own: ctrltest's core module does not require
// k8s.io/kubernetes (whose go.mod needs every staging module replaced with
// its published version, as this module's go.mod does: see docs/kube.md
// for the command that prints the directives). The recipe this example
// used to spell out (fixture.WithDefaulting(legacyscheme.Scheme.Default)
// with the install packages imported) is kube.Default, inside
// kube.Server().
package legacyscheme
