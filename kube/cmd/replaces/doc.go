// Command replaces prints the replace directives that a module requiring
// github.com/ctrltest/ctrltest/kube needs in its go.mod: k8s.io/kubernetes
// requires its staging modules (k8s.io/api, k8s.io/client-go, ...) at
// v0.0.0 and replaces them with its own tree, and a dependency's replace
// directives do not apply to the modules that require it, so each of
// them must replace the staging modules with their published versions,
// as the kube module's go.mod does. The directives are those of the
// kube module's go.mod, for the k8s.io/kubernetes version it requires:
//
//	go run github.com/ctrltest/ctrltest/kube/cmd/replaces >> go.mod
//	go mod tidy
//
// It takes no arguments.
package main
