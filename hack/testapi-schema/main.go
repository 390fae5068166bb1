// Command testapi-schema prints the OpenAPI (swagger 2.0) definitions of the
// test-only API types (internal/testapi), as applyconfiguration-gen's
// --openapi-schema wants them, so that the generated apply configurations
// carry the types' schema and the generated fake's NewClientset can track
// managed fields of Gateways. hack/update-codegen.sh runs it; it is
// hack/models-schema for another API.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/util"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/ctrltest/ctrltest/internal/testapi/generated/openapi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "testapi-schema:", err)
		os.Exit(1)
	}
}

func run() error {
	ref := func(name string) spec.Ref {
		return spec.MustCreateRef("#/definitions/" + util.ToRESTFriendlyName(name))
	}
	defs := openapi.GetOpenAPIDefinitions(common.ReferenceCallback(ref))
	swagger := &spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger:     "2.0",
		Info:        &spec.Info{InfoProps: spec.InfoProps{Title: "ctrltest test API", Version: "v1alpha1"}},
		Definitions: spec.Definitions{},
	}}
	for name, def := range defs {
		swagger.Definitions[util.ToRESTFriendlyName(name)] = def.Schema
	}
	out, err := json.MarshalIndent(swagger, "", "  ")
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(out, '\n'))
	return err
}
