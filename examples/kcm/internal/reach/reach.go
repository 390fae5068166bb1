package reach

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"
	"unsafe"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/kubernetes/pkg/controller"
	"k8s.io/kubernetes/pkg/controller/cronjob"
	"k8s.io/kubernetes/pkg/controller/daemon"
	"k8s.io/kubernetes/pkg/controller/deployment"
	"k8s.io/kubernetes/pkg/controller/job"
	"k8s.io/kubernetes/pkg/controller/replicaset"
	"k8s.io/kubernetes/pkg/controller/statefulset"
	"k8s.io/utils/clock"
)

// SyncHandler is the type of the controllers' sync handler fields.
type SyncHandler = func(ctx context.Context, key string) error

// Queue is the type of the controllers' work queue fields.
type Queue = workqueue.TypedRateLimitingInterface[string]

// Field names the field Name of struct S, of Go type T.
type Field[S, T any] struct{ Name string }

// String names the field as a reader of the upstream source would:
// "deployment.DeploymentController.syncHandler (func(context.Context, string) error)".
func (f Field[S, T]) String() string {
	return fmt.Sprintf("%v.%s (%v)", reflect.TypeFor[S](), f.Name, reflect.TypeFor[T]())
}

// Check returns an error naming the field when S has no field Name or the
// field's type is not exactly T.
func (f Field[S, T]) Check() error {
	s := reflect.TypeFor[S]()
	if s.Kind() != reflect.Struct {
		return fmt.Errorf("reach: %v is not a struct", s)
	}
	sf, ok := s.FieldByName(f.Name)
	if !ok {
		return fmt.Errorf("reach: %v has no field %q any more (the fields reach reads are listed in reach.go); find where it moved in the upstream source", s, f.Name)
	}
	if want := reflect.TypeFor[T](); sf.Type != want {
		return fmt.Errorf("reach: %v.%s is a %v now, not a %v", s, f.Name, sf.Type, want)
	}
	return nil
}

// Of returns a pointer to the field of *s. It fails t at once, naming the
// field, when Check fails.
func (f Field[S, T]) Of(t testing.TB, s *S) *T {
	t.Helper()
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	if s == nil {
		t.Fatalf("reach: %v of a nil %v", f, reflect.TypeFor[*S]())
	}
	v := reflect.ValueOf(s).Elem().FieldByName(f.Name)
	return (*T)(unsafe.Pointer(v.UnsafeAddr()))
}

// ShutDowner names an interface-typed field (a work queue whose element
// type is unexported, such as the Job controller's orphan queue) whose
// value has a ShutDown method.
type ShutDowner[S any] struct{ Name string }

// String names the field.
func (f ShutDowner[S]) String() string {
	return fmt.Sprintf("%v.%s (a work queue)", reflect.TypeFor[S](), f.Name)
}

// Check returns an error naming the field when S has no such field or
// the field's type has no ShutDown method.
func (f ShutDowner[S]) Check() error {
	s := reflect.TypeFor[S]()
	sf, ok := s.FieldByName(f.Name)
	if !ok {
		return fmt.Errorf("reach: %v has no field %q any more", s, f.Name)
	}
	if !sf.Type.Implements(reflect.TypeFor[interface{ ShutDown() }]()) {
		return fmt.Errorf("reach: %v.%s is a %v now, which has no ShutDown method", s, f.Name, sf.Type)
	}
	return nil
}

// ShutDown shuts down the queue in the field of *s (a nil queue is left
// alone). It fails t at once, naming the field, when Check fails.
func (f ShutDowner[S]) ShutDown(t testing.TB, s *S) {
	t.Helper()
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(s).Elem().FieldByName(f.Name)
	v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	if v.IsNil() {
		return
	}
	v.Interface().(interface{ ShutDown() }).ShutDown()
}

// The fields the kcm examples reach, one controller after another. Each is
// checked by TestFieldsAreWhereTheyWere.
var (
	DeploymentSync        = Field[deployment.DeploymentController, SyncHandler]{"syncHandler"}
	DeploymentQueue       = Field[deployment.DeploymentController, Queue]{"queue"}
	DeploymentBroadcaster = Field[deployment.DeploymentController, record.EventBroadcaster]{"eventBroadcaster"}
	DeploymentRecorder    = Field[deployment.DeploymentController, record.EventRecorder]{"eventRecorder"}

	StatefulSetQueue       = Field[statefulset.StatefulSetController, Queue]{"queue"}
	StatefulSetBroadcaster = Field[statefulset.StatefulSetController, record.EventBroadcaster]{"eventBroadcaster"}
	StatefulSetClock       = Field[statefulset.StatefulSetController, clock.PassiveClock]{"clock"}

	DaemonSetSync            = Field[daemon.DaemonSetsController, SyncHandler]{"syncHandler"}
	DaemonSetQueue           = Field[daemon.DaemonSetsController, Queue]{"queue"}
	DaemonSetNodeUpdateQueue = Field[daemon.DaemonSetsController, Queue]{"nodeUpdateQueue"}
	DaemonSetBroadcaster     = Field[daemon.DaemonSetsController, record.EventBroadcaster]{"eventBroadcaster"}
	DaemonSetBurstReplicas   = Field[daemon.DaemonSetsController, int]{"burstReplicas"}

	JobSync        = Field[job.Controller, SyncHandler]{"syncHandler"}
	JobQueue       = Field[job.Controller, Queue]{"queue"}
	JobOrphanQueue = ShutDowner[job.Controller]{"orphanQueue"}
	JobBroadcaster = Field[job.Controller, record.EventBroadcaster]{"broadcaster"}
	JobClock       = Field[job.Controller, clock.WithTicker]{"clock"}
	// The fields upstream's Job fixture replaces (BenchmarkKCM's replica).
	JobPodControl          = Field[job.Controller, controller.PodControlInterface]{"podControl"}
	JobUpdateStatusHandler = Field[job.Controller, func(context.Context, *batchv1.Job) (*batchv1.Job, error)]{"updateStatusHandler"}

	ReplicaSetSync        = Field[replicaset.ReplicaSetController, SyncHandler]{"syncHandler"}
	ReplicaSetQueue       = Field[replicaset.ReplicaSetController, Queue]{"queue"}
	ReplicaSetBroadcaster = Field[replicaset.ReplicaSetController, record.EventBroadcaster]{"eventBroadcaster"}
	// The field upstream's ReplicaSet fixture replaces (BenchmarkKCM's replica).
	ReplicaSetPodControl = Field[replicaset.ReplicaSetController, controller.PodControlInterface]{"podControl"}

	CronJobQueue       = Field[cronjob.ControllerV2, Queue]{"queue"}
	CronJobBroadcaster = Field[cronjob.ControllerV2, record.EventBroadcaster]{"broadcaster"}
	CronJobNow         = Field[cronjob.ControllerV2, func() time.Time]{"now"}
)

// Checker is a Field or ShutDowner.
type Checker interface {
	Check() error
	String() string
}

// Fields are every field above, for the test.
var Fields = []Checker{
	DeploymentSync, DeploymentQueue, DeploymentBroadcaster, DeploymentRecorder,
	StatefulSetQueue, StatefulSetBroadcaster, StatefulSetClock,
	DaemonSetSync, DaemonSetQueue, DaemonSetNodeUpdateQueue, DaemonSetBroadcaster, DaemonSetBurstReplicas,
	JobSync, JobQueue, JobOrphanQueue, JobBroadcaster, JobClock, JobPodControl, JobUpdateStatusHandler,
	ReplicaSetSync, ReplicaSetQueue, ReplicaSetBroadcaster, ReplicaSetPodControl,
	CronJobQueue, CronJobBroadcaster, CronJobNow,
}
