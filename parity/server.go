package parity

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture/adapter"
)

// Server is the API server parity runs use: an etcd and a kube-apiserver
// on 127.0.0.1 (Start), or a cluster of the user's (Connect). It
// implements adapter.Server and adapter.ClientsetServer.
type Server struct {
	// Config reaches the server with rights to create namespaces, custom
	// resource definitions and the objects of the rows.
	Config *rest.Config

	dir    string
	binDir string // the binaries' (Start's)
	procs  []*process
	// anyExit receives the first process to exit.
	anyExit chan *process

	stopMu  sync.Mutex
	stopped bool
	// controllers: kube-controller-manager runs beside the server (see
	// StartControllers).
	controllers atomic.Bool
}

// Start runs etcd and kube-apiserver from binDir (which holds both, see
// hack/parity-binaries.sh) on free loopback ports, and waits until the
// server is ready or ctx is done (at most a minute). A process that exits
// meanwhile fails Start at once, with its last log lines. Call Stop when
// done; the processes are also killed if the calling process dies.
//
// Their files (etcd's data, the service-account key, the admin token, the
// logs) are in a directory of the temporary directory,
// ctrltest-parity-*, readable by the owner only, which Stop removes. Start
// first removes the directories of earlier runs whose process is gone (a
// panic, go test's -timeout or SIGKILL ended them before Stop).
func Start(ctx context.Context, binDir string) (s *Server, err error) {
	dir, err := newRunDir()
	if err != nil {
		return nil, err
	}
	s = &Server{dir: dir, binDir: binDir, anyExit: make(chan *process, 1)}
	defer func() {
		if err != nil {
			_ = s.Stop()
		}
	}()
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	if err := s.run(filepath.Join(binDir, "etcd"), "etcd.log",
		"--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", "http://127.0.0.1:"+strconv.Itoa(ports[1]),
	); err != nil {
		return nil, err
	}
	key, pub, err := serviceAccountKeys(dir)
	if err != nil {
		return nil, err
	}
	token := randomToken()
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(token+",admin,admin,system:masters\n"), 0o600); err != nil {
		return nil, err
	}
	if err := s.run(filepath.Join(binDir, "kube-apiserver"), "kube-apiserver.log",
		"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(ports[2]),
		"--cert-dir", filepath.Join(dir, "certs"),
		"--service-account-key-file", pub,
		"--service-account-signing-key-file", key,
		"--service-account-issuer", "https://ctrltest.invalid",
		"--authorization-mode", "AlwaysAllow",
		"--token-auth-file", tokens,
		// 1.37 exits with --advertise-address=127.0.0.1; no endpoint
		// reconciler needs one.
		"--endpoint-reconciler-type", "none",
		// Each Service keeps an address of it for the server's life:
		// nothing deletes the fuzzer's (a /24 ran out within 12 minutes of
		// make fuzz).
		"--service-cluster-ip-range", "10.0.0.0/16",
		// No controller manager runs: nothing makes the ServiceAccount
		// "default" of a namespace, which this plugin waits for before it
		// admits a Pod.
		"--disable-admission-plugins", "ServiceAccount",
	); err != nil {
		return nil, err
	}
	s.Config = &rest.Config{
		Host:            "https://127.0.0.1:" + strconv.Itoa(ports[2]),
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             -1,
	}
	return s, s.waitReady(ctx)
}

// Connect returns a Server for a running API server, typically the
// cluster of a kubeconfig file:
//
//	config, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
//	...
//	srv, err := parity.Connect(config)
//
// Each row runs in namespaces of its own, which it deletes when it ends.
// Stop does nothing to such a server.
func Connect(config *rest.Config) (*Server, error) {
	if config == nil {
		return nil, errors.New("parity.Connect: nil config")
	}
	return &Server{Config: rest.CopyConfig(config)}, nil
}

// ClientConfig returns the config of clients of the server, whose requests
// are passed to record (see adapter.Server).
func (s *Server) ClientConfig(record func(actions.Action)) *rest.Config {
	if record == nil {
		return rest.CopyConfig(s.Config)
	}
	return Record(s.Config, nil, record, nil)
}

// NewClientset builds the real kubernetes clientset (client-go's
// kubernetes.NewForConfig) for the built-in kubernetes registration and fixture.KubeFieldManaged,
// which have no fixture.ForConfig; nil for any other clientset (see
// adapter.ClientsetServer).
func (s *Server) NewClientset(iface reflect.Type, config *rest.Config) (any, error) {
	if iface != reflect.TypeFor[kubernetes.Interface]() {
		return nil, nil
	}
	return kubernetes.NewForConfig(config)
}

var _ adapter.ClientsetServer = (*Server)(nil)

// run starts one process, its output in the server's directory.
func (s *Server) run(path, logName string, args ...string) error {
	p, err := startProcess(path, filepath.Join(s.dir, logName), s.anyExit, args...)
	if err != nil {
		return err
	}
	s.procs = append(s.procs, p)
	return nil
}

func (s *Server) waitReady(ctx context.Context) error {
	client, err := kubernetes.NewForConfig(s.Config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var last error
	for {
		_, last = client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if last == nil {
			return nil
		}
		select {
		case p := <-s.anyExit:
			return p.exitError("before the server was ready")
		case <-ctx.Done():
			msg := fmt.Sprintf("parity: kube-apiserver not ready: %v", last)
			for _, p := range s.procs {
				msg += "\n" + p.name + p.lastLines()
			}
			return errors.New(msg)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Err returns an error, with its last log lines, when a process of the
// server has exited; nil while the server runs, and for a server of
// Connect.
func (s *Server) Err() error {
	s.stopMu.Lock()
	defer s.stopMu.Unlock()
	if s.stopped {
		return nil
	}
	return s.exited()
}

// exited reports the first process of the server that has exited.
func (s *Server) exited() error {
	for _, p := range s.procs {
		if p.hasExited() {
			return p.exitError("while the server was in use")
		}
	}
	return nil
}

// Stop ends the server and etcd and removes their files. It reports a
// process that had exited before (with its last log lines). Later calls
// do nothing.
func (s *Server) Stop() error {
	s.stopMu.Lock()
	defer s.stopMu.Unlock()
	if s.stopped {
		return nil
	}
	s.stopped = true
	errs := []error{s.exited()}
	for i := len(s.procs) - 1; i >= 0; i-- {
		s.procs[i].stop(10 * time.Second)
	}
	if s.dir != "" {
		errs = append(errs, os.RemoveAll(s.dir))
	}
	return errors.Join(errs...)
}

// freePorts asks the kernel for n free loopback ports.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// serviceAccountKeys writes the key pair the server signs tokens with.
func serviceAccountKeys(dir string) (keyPath, pubPath string, err error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", "", err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", "", err
	}
	keyPath, pubPath = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return "", "", err
	}
	return keyPath, pubPath, os.WriteFile(pubPath, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o600)
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
