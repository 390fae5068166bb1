// Package openapischema prints OpenAPI (swagger 2.0) definitions made by
// openapi-gen as applyconfiguration-gen's --openapi-schema wants them. The
// schema commands of hack/ (models-schema, testapi-schema) call it with
// their API's definitions; they are commands of their own because each
// imports a package that hack/update-codegen.sh generates in turn.
package openapischema

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/util"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Main prints the definitions to standard output under title, and exits
// with status 1 and a message naming command when it cannot.
func Main(command, title string, definitions func(common.ReferenceCallback) map[string]common.OpenAPIDefinition) {
	if err := write(title, definitions); err != nil {
		fmt.Fprintln(os.Stderr, command+":", err)
		os.Exit(1)
	}
}

func write(title string, definitions func(common.ReferenceCallback) map[string]common.OpenAPIDefinition) error {
	ref := func(name string) spec.Ref {
		return spec.MustCreateRef("#/definitions/" + util.ToRESTFriendlyName(name))
	}
	swagger := &spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger:     "2.0",
		Info:        &spec.Info{InfoProps: spec.InfoProps{Title: title, Version: "v1alpha1"}},
		Definitions: spec.Definitions{},
	}}
	for name, def := range definitions(common.ReferenceCallback(ref)) {
		swagger.Definitions[util.ToRESTFriendlyName(name)] = def.Schema
	}
	out, err := json.MarshalIndent(swagger, "", "  ")
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(append(out, '\n'))
	return err
}
