// Package tools pins the commands ctrltest's Makefile and scripts run
// (staticcheck, benchstat, k8s.io/code-generator, openapi-gen) as tool
// directives of a module of its own, so that they are not in the module
// graph of ctrltest's users. Run one from the repository's root with
//
//	go tool -modfile=hack/tools/go.mod staticcheck ./...
package tools
