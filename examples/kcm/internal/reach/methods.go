package reach

import (
	"context"
	"time"
	_ "unsafe" // go:linkname

	"k8s.io/kubernetes/pkg/controller/cronjob"
	"k8s.io/kubernetes/pkg/controller/statefulset"
)

// The StatefulSet and CronJob controllers keep their sync in a method, not
// a func field: these functions are those methods (go:linkname; the
// package's empty .s file lets the declarations have no body). The
// linker binds by name only, so TestMethodsAreWhatTheyWere checks each
// method's signature in the upstream source.

//go:linkname statefulSetSync k8s.io/kubernetes/pkg/controller/statefulset.(*StatefulSetController).sync
func statefulSetSync(ssc *statefulset.StatefulSetController, ctx context.Context, key string) error

//go:linkname cronJobSync k8s.io/kubernetes/pkg/controller/cronjob.(*ControllerV2).sync
func cronJobSync(jm *cronjob.ControllerV2, ctx context.Context, key string) (*time.Duration, error)

// StatefulSetSync returns ssc's sync method (ssc.sync), the StatefulSet
// controller's sync handler.
func StatefulSetSync(ssc *statefulset.StatefulSetController) SyncHandler {
	return func(ctx context.Context, key string) error { return statefulSetSync(ssc, ctx, key) }
}

// CronJobSync returns jm's sync method (jm.sync): its error, and the delay
// after which the controller's worker would sync the key again (nil for
// none).
func CronJobSync(jm *cronjob.ControllerV2) func(ctx context.Context, key string) (*time.Duration, error) {
	return func(ctx context.Context, key string) (*time.Duration, error) { return cronJobSync(jm, ctx, key) }
}

// method is a linked method and the signature its source must declare.
type method struct {
	fn        any    // the go:linkname'd function
	name      string // the symbol it must be linked to
	recv      string // the receiver's type, as written in the source
	method    string
	signature string // parameter and result types, names dropped
}

// methods are the methods reached above, for the test.
var methods = []method{
	{statefulSetSync, "k8s.io/kubernetes/pkg/controller/statefulset.(*StatefulSetController).sync", "*StatefulSetController", "sync", "func(context.Context, string) error"},
	{cronJobSync, "k8s.io/kubernetes/pkg/controller/cronjob.(*ControllerV2).sync", "*ControllerV2", "sync", "func(context.Context, string) (*time.Duration, error)"},
}
