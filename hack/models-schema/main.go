// Command models-schema prints the OpenAPI (swagger 2.0) definitions of the
// reference controller's API types, as applyconfiguration-gen's
// --openapi-schema wants them, so that the generated apply configurations
// carry the types' schema and the generated fake's NewClientset can track
// managed fields of Foos. hack/update-codegen.sh runs it.
package main

import (
	"github.com/ctrltest/ctrltest/controller/generated/openapi"
	"github.com/ctrltest/ctrltest/hack/openapischema"
)

func main() {
	openapischema.Main("models-schema", "ctrltest reference controller", openapi.GetOpenAPIDefinitions)
}
