package parity

import (
	"os"
	"path/filepath"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// binDir is where hack/parity-binaries.sh puts the binaries.
func binDir(t *testing.T) string {
	dir := os.Getenv("CTRLTEST_PARITY_BIN")
	if dir == "" {
		dir, _ = filepath.Abs("../.cache/parity/bin")
	}
	if _, err := os.Stat(filepath.Join(dir, "kube-apiserver")); err != nil {
		if os.Getenv(EnvRequired) == "1" {
			t.Fatalf("no kube-apiserver in %s: %v", dir, err)
		}
		t.Skipf("no kube-apiserver in %s: run hack/parity-binaries.sh (or set CTRLTEST_PARITY_BIN)", dir)
	}
	return dir
}

func TestServerStartsAndStops(t *testing.T) {
	s, err := Start(t.Context(), binDir(t))
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	v, err := client.Discovery().ServerVersion()
	if err != nil || v.Major != "1" || v.Minor != "37" {
		t.Errorf("version %v, %v", v, err)
	}
	if _, err := client.CoreV1().Namespaces().Create(t.Context(), nsNamed("parity-smoke"), metav1.CreateOptions{}); err != nil {
		t.Errorf("creating a namespace: %v", err)
	}
	pids := []int{}
	for _, p := range s.procs {
		pids = append(pids, p.Process.Pid)
	}
	dir := s.dir
	if err := s.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	for _, pid := range pids {
		if _, err := os.Stat(filepath.Join("/proc", itoa(pid))); err == nil {
			t.Errorf("process %d is still running after Stop", pid)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s is left behind", dir)
	}
}
