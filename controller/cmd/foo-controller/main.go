// Command foo-controller runs the reference Foo controller against a cluster.
//
// It needs the Foo CustomResourceDefinition from controller/artifacts/crd.yaml
// to be installed. It stops on SIGINT or SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/ctrltest/ctrltest/controller"
	"github.com/ctrltest/ctrltest/controller/apis/samplecontroller/v1alpha1"
	"github.com/ctrltest/ctrltest/controller/generated/clientset/versioned"
	fooinformers "github.com/ctrltest/ctrltest/controller/generated/informers/externalversions"
)

const resyncPeriod = 30 * time.Second

func main() {
	klog.InitFlags(nil)
	kubeconfig := flag.String("kubeconfig", "", "Path to a kubeconfig file. Only required when running outside a cluster.")
	master := flag.String("master", "", "Address of the Kubernetes API server. Overrides the server in the kubeconfig. Only required when running outside a cluster.")
	flag.Parse()

	if err := run(*master, *kubeconfig); err != nil {
		klog.ErrorS(err, "foo-controller failed")
		klog.FlushAndExit(klog.ExitFlushTimeout, 1)
	}
	klog.Flush()
}

func run(master, kubeconfig string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := klog.FromContext(ctx)

	cfg, err := clientcmd.BuildConfigFromFlags(master, kubeconfig)
	if err != nil {
		return fmt.Errorf("building client config: %w", err)
	}
	kubeClient, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building Kubernetes clientset: %w", err)
	}
	fooClient, err := versioned.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("building Foo clientset: %w", err)
	}

	// Events name their involved object by kind, so the recorder needs a
	// scheme that knows Foo. Build a private one rather than registering Foo
	// in client-go's global scheme.
	scheme := runtime.NewScheme()
	if err := kubescheme.AddToScheme(scheme); err != nil {
		return fmt.Errorf("building scheme: %w", err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return fmt.Errorf("building scheme: %w", err)
	}

	kubeInformerFactory := kubeinformers.NewSharedInformerFactory(kubeClient, resyncPeriod)
	fooInformerFactory := fooinformers.NewSharedInformerFactory(fooClient, resyncPeriod)

	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartStructuredLogging(0)
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kubeClient.CoreV1().Events("")})
	recorder := broadcaster.NewRecorder(scheme, corev1.EventSource{Component: controller.FieldManager})
	defer func() {
		// stop cancels ctx, which tells the informers to stop; the
		// shutdowns then wait for them and the broadcaster to finish.
		stop()
		broadcaster.Shutdown()
		kubeInformerFactory.Shutdown()
		fooInformerFactory.Shutdown()
	}()

	c, err := controller.New(ctx, kubeClient, fooClient,
		kubeInformerFactory.Apps().V1().Deployments(),
		fooInformerFactory.Samplecontroller().V1alpha1().Foos(),
		recorder,
	)
	if err != nil {
		return fmt.Errorf("creating controller: %w", err)
	}

	kubeInformerFactory.Start(ctx.Done())
	fooInformerFactory.Start(ctx.Done())

	if err := c.Run(ctx, 2); err != nil {
		return fmt.Errorf("running controller: %w", err)
	}
	logger.Info("foo-controller stopped")
	return nil
}
