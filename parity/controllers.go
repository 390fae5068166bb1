package parity

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
)

// controllers are the kube-controller-manager controllers StartControllers
// runs: the ones fixture.WithGarbageCollector and
// fixture.WithNamespaceLifecycle stand for, and no other (no Deployment
// controller writing statuses behind a row's back).
const controllers = "garbage-collector-controller,namespace-controller"

// StartControllers runs kube-controller-manager beside a server of Start,
// from the directory of its binaries (hack/parity-binaries.sh builds it),
// with its garbage collector and namespace controller
// only, and waits until its garbage collector has collected a dependent
// and its namespace controller has removed a namespace (at most two
// minutes each). Rows with fixture.WithGarbageCollector or
// fixture.WithNamespaceLifecycle then run on the server too: after a
// sync, the fixture waits until the controllers have acted
// (SettleControllers). Stop ends it with the server.
func (s *Server) StartControllers(ctx context.Context) error {
	if s.dir == "" {
		return errors.New("parity: StartControllers needs a server of Start (a cluster of Connect runs its own controller manager)")
	}
	if s.controllers.Load() {
		return nil
	}
	kubeconfig := filepath.Join(s.dir, "kube-controller-manager.kubeconfig")
	config := clientcmdapi.NewConfig()
	config.Clusters["parity"] = &clientcmdapi.Cluster{Server: s.Config.Host, InsecureSkipTLSVerify: true}
	config.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: s.Config.BearerToken}
	config.Contexts["parity"] = &clientcmdapi.Context{Cluster: "parity", AuthInfo: "admin"}
	config.CurrentContext = "parity"
	if err := clientcmd.WriteToFile(*config, kubeconfig); err != nil {
		return err
	}
	if err := os.Chmod(kubeconfig, 0o600); err != nil {
		return err
	}
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	if err := s.run(filepath.Join(s.binDir, "kube-controller-manager"), "kube-controller-manager.log",
		"--kubeconfig", kubeconfig,
		"--controllers", controllers,
		"--leader-elect=false",
		"--bind-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(ports[0]),
		"--cert-dir", filepath.Join(s.dir, "kcm-certs"),
	); err != nil {
		return err
	}
	if err := s.probeControllers(ctx); err != nil {
		for _, p := range s.procs {
			if p.name == "kube-controller-manager" {
				err = fmt.Errorf("%w\n%s%s", err, p.name, p.lastLines())
			}
		}
		return err
	}
	s.controllers.Store(true)
	return nil
}

// probeControllers waits until the garbage collector collects a ConfigMap
// whose owner is deleted, and the namespace controller removes the
// namespace that held them.
func (s *Server) probeControllers(ctx context.Context) error {
	client, err := kubernetes.NewForConfig(s.Config)
	if err != nil {
		return err
	}
	const ns = "parity-controllers-probe"
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	owner, err := client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	dependent := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dependent", OwnerReferences: []metav1.OwnerReference{
		{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, Controller: ptr.To(true)},
	}}}
	if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, dependent, metav1.CreateOptions{}); err != nil {
		return err
	}
	if err := client.CoreV1().ConfigMaps(ns).Delete(ctx, owner.Name, metav1.DeleteOptions{}); err != nil {
		return err
	}
	if err := s.await(ctx, "the garbage collector to collect a dependent", func() (bool, error) {
		_, err := client.CoreV1().ConfigMaps(ns).Get(ctx, "dependent", metav1.GetOptions{})
		return apierrors.IsNotFound(err), ignoreNotFound(err)
	}); err != nil {
		return err
	}
	if err := client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
		return err
	}
	return s.await(ctx, "the namespace controller to remove a namespace", func() (bool, error) {
		_, err := client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err), ignoreNotFound(err)
	})
}

// await polls done until it reports true, for at most two minutes; a
// process of the server that exits meanwhile ends it.
func (s *Server) await(ctx context.Context, what string, done func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		ok, err := done()
		if ok || err != nil {
			return err
		}
		select {
		case p := <-s.anyExit:
			return p.exitError("while waiting for " + what)
		case <-ctx.Done():
			return fmt.Errorf("parity: waited %v for %s", 2*time.Minute, what)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// RunsControllers reports whether kube-controller-manager's garbage
// collector and namespace controller run beside the server
// (StartControllers). The fixture asks, for fixture.WithGarbageCollector
// and fixture.WithNamespaceLifecycle.
func (s *Server) RunsControllers() bool { return s.controllers.Load() }

// settleQuiet is how long the world must stay unchanged, with no work
// pending, before SettleControllers takes the controllers to be done:
// longer than the garbage collector takes to act on an event (tens of
// milliseconds here).
const settleQuiet = 2 * time.Second

// settleLimit bounds SettleControllers: work that stays pending longer
// (a namespace whose content a finalizer of no controller's holds) is
// left as it is, as a cluster would leave it.
const settleLimit = time.Minute

// SettleControllers waits until the world, whose state tells its version
// and whether the controllers have work pending (a namespace being
// deleted, an owner being deleted in the foreground or with the orphan
// policy), has no work pending and has stayed unchanged for settleQuiet;
// for at most settleLimit. The fixture calls it after each sync, before
// its informers are brought up to date.
func (s *Server) SettleControllers(ctx context.Context, state func() (version string, pending bool, err error)) error {
	deadline := time.Now().Add(settleLimit)
	last, pending, err := state()
	if err != nil {
		return err
	}
	since := time.Now()
	for pending || time.Since(since) < settleQuiet {
		if time.Now().After(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case p := <-s.anyExit:
			return p.exitError("while waiting for the controllers to act")
		case <-time.After(100 * time.Millisecond):
		}
		var v string
		if v, pending, err = state(); err != nil {
			return err
		}
		if v != last {
			last, since = v, time.Now()
		}
	}
	return nil
}
