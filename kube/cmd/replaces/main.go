package main

import (
	"fmt"
	"io"
	"os"
)

// kubernetes is the version of k8s.io/kubernetes the kube module
// requires.
const kubernetes = "v1.37.1"

// published is the version of the staging modules the kube module
// replaces them with: the release of k8s.io/kubernetes' minor version
// that the core module's k8s.io/client-go is.
const published = "v0.37.2"

// staging are the modules k8s.io/kubernetes requires at v0.0.0 and
// replaces with its tree (its go.mod), in its go.mod's order.
var staging = [...]string{
	"k8s.io/api",
	"k8s.io/apiextensions-apiserver",
	"k8s.io/apimachinery",
	"k8s.io/apiserver",
	"k8s.io/cli-runtime",
	"k8s.io/client-go",
	"k8s.io/cloud-provider",
	"k8s.io/cluster-bootstrap",
	"k8s.io/code-generator",
	"k8s.io/component-base",
	"k8s.io/component-helpers",
	"k8s.io/controller-manager",
	"k8s.io/cri-api",
	"k8s.io/cri-client",
	"k8s.io/cri-streaming",
	"k8s.io/csi-translation-lib",
	"k8s.io/dynamic-resource-allocation",
	"k8s.io/endpointslice",
	"k8s.io/externaljwt",
	"k8s.io/kms",
	"k8s.io/kube-aggregator",
	"k8s.io/kube-controller-manager",
	"k8s.io/kube-proxy",
	"k8s.io/kube-scheduler",
	"k8s.io/kubectl",
	"k8s.io/kubelet",
	"k8s.io/metrics",
	"k8s.io/mount-utils",
	"k8s.io/pod-security-admission",
	"k8s.io/sample-apiserver",
	"k8s.io/streaming",
}

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "usage: replaces (prints the replace directives a module requiring github.com/ctrltest/ctrltest/kube needs in its go.mod)")
		os.Exit(2)
	}
	if err := write(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "replaces:", err)
		os.Exit(1)
	}
}

// write writes the directives, with the comment that says why, as they
// read in a go.mod.
func write(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "// k8s.io/kubernetes %s replaces its staging modules with its own tree; a\n// module that requires it replaces them with their published versions.\nreplace (\n", kubernetes); err != nil {
		return err
	}
	for _, m := range staging {
		if _, err := fmt.Fprintf(w, "\t%s => %s %s\n", m, m, published); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w, ")")
	return err
}
