// Package legacyscheme shows the recipe for kube-apiserver's defaults of
// built-in types in a ctrltest fixture: k8s.io/kubernetes'
// legacyscheme.Scheme, with the pkg/apis/<group>/install packages
// imported, has the defaulting functions the server runs when it decodes
// a request; fixture.WithDefaulting(legacyscheme.Scheme.Default) gives
// them to the fixture's server model, for seeds and writes.
//
// It is a module of its own: ctrltest's core module does not require
// k8s.io/kubernetes (whose go.mod needs every staging module replaced with
// its published version, as this module's go.mod does). In-tree
// controllers' tests have legacyscheme already.
package legacyscheme
