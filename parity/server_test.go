package parity

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/ctrltest/ctrltest/fixture"
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
	// Every Service keeps a cluster IP for the server's life: a long make
	// fuzz makes more than the 253 a /24 holds ("range is full").
	for i := range 300 {
		svc := &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("svc-%d", i)},
			Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
		}
		if _, err := client.CoreV1().Services("parity-smoke").Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
			t.Errorf("creating Service %d of 300: %v", i+1, err)
			break
		}
	}
	t.Run("fields it fills", func(t *testing.T) { testServerFilled(t, s) })
	pids := []int{}
	for _, p := range s.procs {
		pids = append(pids, p.cmd.Process.Pid)
	}
	dir := s.dir
	for name, want := range map[string]os.FileMode{".": 0o700 | os.ModeDir, "sa.key": 0o600, "tokens.csv": 0o600, "owner": 0o600, "etcd.log": 0o600, "kube-apiserver.log": 0o600} {
		if info, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("the server's directory: %v", err)
		} else if info.Mode() != want {
			t.Errorf("%s in the server's directory has mode %v, want %v", name, info.Mode(), want)
		}
	}
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

// A cluster of the user's, named by a kubeconfig file: FromEnv connects to
// it, and rows run there as on a server started here, leaving nothing
// behind.
func TestFromEnvKubeconfig(t *testing.T) {
	s, err := Start(t.Context(), binDir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	config := clientcmdapi.NewConfig()
	config.Clusters["parity"] = &clientcmdapi.Cluster{Server: s.Config.Host, InsecureSkipTLSVerify: true}
	config.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: s.Config.BearerToken}
	config.Contexts["parity"] = &clientcmdapi.Context{Cluster: "parity", AuthInfo: "admin"}
	config.CurrentContext = "parity"
	if err := clientcmd.WriteToFile(*config, kubeconfig); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvKubeconfig, kubeconfig)
	cluster, err := FromEnv(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(cluster.procs) != 0 || cluster.Config.Host != s.Config.Host {
		t.Fatalf("FromEnv with a kubeconfig: %d processes, host %s; want a connection to %s", len(cluster.procs), cluster.Config.Host, s.Config.Host)
	}

	table := fixture.Table[string]{Wire: func(f *fixture.Fixture) fixture.SyncFunc[string] {
		return func(ctx context.Context, key string) error {
			ns, _, _ := strings.Cut(key, "/")
			_, err := f.Kube().CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "made"}}, metav1.CreateOptions{})
			return err
		}
	}}
	row := fixture.Row{Name: "creates", Key: "default/x", Objects: []k8sruntime.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "seed"}}}}
	var rep *Report
	t.Run("row", func(t *testing.T) { rep = Compare(t, cluster, table, row) })
	if rep == nil || len(rep.Divergences) != 0 || len(rep.Server.Objects) != 2 {
		t.Fatalf("the row on the cluster: %v", rep)
	}
	// The row's namespaces are gone (terminating: no namespace controller runs here).
	client, err := kubernetes.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	list, err := client.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range list.Items {
		if strings.HasPrefix(ns.Name, "ct-") && ns.DeletionTimestamp == nil {
			t.Errorf("namespace %s is left behind", ns.Name)
		}
	}
	cms, err := client.CoreV1().ConfigMaps("").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range cms.Items {
		if strings.HasPrefix(cm.Namespace, "ct-") && cm.Name != "kube-root-ca.crt" {
			t.Errorf("config map %s/%s is left behind", cm.Namespace, cm.Name)
		}
	}
}

func TestConnectNil(t *testing.T) {
	if s, err := Connect(nil); s != nil || err == nil || !strings.Contains(err.Error(), "nil config") {
		t.Errorf("Connect(nil) = %v, %v; want an error", s, err)
	}
}

// The server dies with the test binary, however it ends: here the binary
// is killed (SIGKILL, as a CI timeout or a second ^C does), so no cleanup
// of its own runs.
func TestServerDiesWithTheTestBinary(t *testing.T) {
	if os.Getenv("CTRLTEST_PARITY_CHILD") == "1" {
		s, err := Start(context.Background(), binDir(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range s.procs {
			fmt.Println("pid", p.cmd.Process.Pid)
		}
		fmt.Println("dir", s.dir)
		fmt.Println("ready")
		select {} // until killed
	}
	dir := binDir(t)
	t.Setenv("TMPDIR", t.TempDir())
	cmd := exec.Command(os.Args[0], "-test.run", "^TestServerDiesWithTheTestBinary$", "-test.v")
	cmd.Env = append(os.Environ(), "CTRLTEST_PARITY_CHILD=1", EnvBin+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	var runDir string
	scanner := bufio.NewScanner(out)
	for scanner.Scan() {
		line := scanner.Text()
		if n, ok := strings.CutPrefix(line, "pid "); ok {
			pid, _ := strconv.Atoi(n)
			pids = append(pids, pid)
		}
		if d, ok := strings.CutPrefix(line, "dir "); ok {
			runDir = d
		}
		if line == "ready" {
			break
		}
	}
	if len(pids) != 2 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the child started %d processes before it was ready, want etcd and kube-apiserver", len(pids))
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("process %d outlived the test binary that started it", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	// Its directory is left, for the next Start to remove.
	if removed := sweepRunDirs(os.TempDir()); len(removed) != 1 || removed[0] != runDir {
		t.Errorf("the next Start removed %v, want the killed run's %s", removed, runDir)
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data))
	return len(fields) > 2 && fields[2] != "Z"
}
