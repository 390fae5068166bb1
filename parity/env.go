package parity

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

// The environment variables that choose the server of FromEnv and Main.
const (
	// EnvKubeconfig names a kubeconfig file: parity runs against its
	// cluster (current context) instead of a server started here.
	EnvKubeconfig = "CTRLTEST_PARITY_KUBECONFIG"
	// EnvBin names the directory holding etcd and kube-apiserver
	// (hack/parity-binaries.sh builds them into .cache/parity/bin, which
	// is the default, looked up from the working directory upwards).
	EnvBin = "CTRLTEST_PARITY_BIN"
	// EnvRequired, set to 1, makes Shared fail a test instead of skipping
	// it when there is no server (make parity sets it).
	EnvRequired = "CTRLTEST_PARITY_REQUIRED"
	// EnvReport names a file that Run appends every row's report to
	// (make parity prints it after the tests).
	EnvReport = "CTRLTEST_PARITY_REPORT"
)

// ErrNoServer is FromEnv's error when neither a kubeconfig nor the
// binaries are there.
var ErrNoServer = errors.New("parity: no server: set " + EnvKubeconfig + " to a kubeconfig, or build the binaries with hack/parity-binaries.sh (or set " + EnvBin + ")")

// FromEnv returns the server the environment names: the cluster of
// $CTRLTEST_PARITY_KUBECONFIG when it is set, otherwise a server started
// from the binaries in $CTRLTEST_PARITY_BIN (or .cache/parity/bin). Stop it
// when done.
func FromEnv(ctx context.Context) (*Server, error) {
	if path := os.Getenv(EnvKubeconfig); path != "" {
		config, err := clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			return nil, fmt.Errorf("parity: %s=%s: %v", EnvKubeconfig, path, err)
		}
		return Connect(config)
	}
	dir := os.Getenv(EnvBin)
	if dir == "" {
		dir = findBinDir()
	}
	if dir == "" {
		return nil, ErrNoServer
	}
	if _, err := os.Stat(filepath.Join(dir, "kube-apiserver")); err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNoServer, err)
	}
	return Start(ctx, dir)
}

// findBinDir looks for .cache/parity/bin/kube-apiserver from the working
// directory upwards.
func findBinDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		bin := filepath.Join(dir, ".cache", "parity", "bin")
		if _, err := os.Stat(filepath.Join(bin, "kube-apiserver")); err == nil {
			return bin
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

var crdsGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// InstallCRDs creates (or updates) the custom resource definitions in the
// YAML files and waits until the server serves them. Install them once, up
// front: the server makes the first object of a new resource wait.
func (s *Server) InstallCRDs(ctx context.Context, files ...string) error {
	client, err := dynamic.NewForConfig(s.Config)
	if err != nil {
		return err
	}
	crds := client.Resource(crdsGVR)
	var names []string
	for _, file := range files {
		objs, err := readObjects(file)
		if err != nil {
			return err
		}
		for _, u := range objs {
			if u.GetKind() != "CustomResourceDefinition" {
				return fmt.Errorf("parity: %s: %s %q is not a CustomResourceDefinition", file, u.GetKind(), u.GetName())
			}
			_, err := crds.Create(ctx, u, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				var old *unstructured.Unstructured
				if old, err = crds.Get(ctx, u.GetName(), metav1.GetOptions{}); err == nil {
					u.SetResourceVersion(old.GetResourceVersion())
					_, err = crds.Update(ctx, u, metav1.UpdateOptions{})
				}
			}
			if err != nil {
				return fmt.Errorf("parity: installing %s from %s: %v", u.GetName(), file, err)
			}
			names = append(names, u.GetName())
		}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for _, name := range names {
		for {
			u, err := crds.Get(ctx, name, metav1.GetOptions{})
			if err == nil && established(u) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("parity: %s not established: %v", name, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	return nil
}

func established(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// readObjects reads every object of a YAML (or JSON) file.
func readObjects(file string) ([]*unstructured.Unstructured, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("parity: %v", err)
	}
	defer f.Close()
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 4096)
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("parity: %s: %v", file, err)
		}
		if obj != nil {
			out = append(out, &unstructured.Unstructured{Object: obj})
		}
	}
}

// The server of Main, for Shared.
var (
	shared    *Server
	errShared = errors.New("parity: Shared is called outside Main; call parity.Main from TestMain")
)

// Main runs a test binary's tests (call it from TestMain) with one server
// for all of them (FromEnv), the CRDs of crdFiles installed, and stops the
// server after:
//
//	func TestMain(m *testing.M) { os.Exit(parity.Main(m, "../controller/artifacts/crd.yaml")) }
//
// Tests get the server with Shared. Without a server they skip (or, with
// CTRLTEST_PARITY_REQUIRED=1, fail).
func Main(m *testing.M, crdFiles ...string) int {
	ctx := context.Background()
	s, err := FromEnv(ctx)
	if err == nil {
		if err = s.InstallCRDs(ctx, crdFiles...); err != nil {
			_ = s.Stop()
		}
	}
	shared, errShared = s, err
	if err != nil {
		shared = nil
		if !errors.Is(err, ErrNoServer) || os.Getenv(EnvRequired) == "1" {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if shared != nil {
		// ^C or a CI's SIGTERM: remove the server's files on the way out.
		defer stopOnSignal(shared)()
	}
	code := m.Run()
	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "parity: stopping the server:", err)
		}
	}
	return code
}

// Shared returns the server Main started, or skips t when there is none.
// It fails t when a process of the server has exited (see Server.Err).
func Shared(t testing.TB) *Server {
	t.Helper()
	if shared == nil {
		t.Skip(errShared)
	}
	if err := shared.Err(); err != nil {
		t.Fatal(err)
	}
	return shared
}
