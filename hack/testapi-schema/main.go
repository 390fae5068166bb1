// Command testapi-schema prints the OpenAPI (swagger 2.0) definitions of the
// test-only API types (internal/testapi), as applyconfiguration-gen's
// --openapi-schema wants them, so that the generated apply configurations
// carry the types' schema and the generated fake's NewClientset can track
// managed fields of Gateways. hack/update-codegen.sh runs it; it is
// hack/models-schema for another API.
package main

import (
	"github.com/ctrltest/ctrltest/hack/openapischema"
	"github.com/ctrltest/ctrltest/internal/testapi/generated/openapi"
)

func main() {
	openapischema.Main("testapi-schema", "ctrltest test API", openapi.GetOpenAPIDefinitions)
}
