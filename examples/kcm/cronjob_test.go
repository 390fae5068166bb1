package kcm

import (
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/records"
)

// The instants of upstream's cronjob_controllerv2_test.go.
var (
	justAfterThePriorHour = time.Date(2016, 5, 19, 9, 1, 0, 0, time.UTC)
	justBeforeTheHour     = time.Date(2016, 5, 19, 9, 59, 0, 0, time.UTC)
	topOfTheHour          = time.Date(2016, 5, 19, 10, 0, 0, 0, time.UTC)
	justAfterTheHour      = time.Date(2016, 5, 19, 10, 1, 0, 0, time.UTC)
)

const (
	onTheHour         = "0 * * * ?"
	errorSchedule     = "obvious error schedule"
	nextScheduleDelta = 100 * time.Millisecond // the controller's
	cronJobKey        = "snazzycats/mycronjob"
)

// newCronJob is upstream's cronJob(): "mycronjob" in "snazzycats",
// created just before the hour, with policy and schedule.
func newCronJob(policy batchv1.ConcurrencyPolicy, schedule string) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Name: "mycronjob", Namespace: "snazzycats", UID: "1a2b3c", CreationTimestamp: metav1.NewTime(justBeforeTheHour)},
		Spec: batchv1.CronJobSpec{
			Schedule:          schedule,
			ConcurrencyPolicy: policy,
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"x": "y"}},
				Spec: batchv1.JobSpec{
					Parallelism: ptr.To[int32](1),
					Completions: ptr.To[int32](1),
					Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: fooBar},
						Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "foo", Image: "foo/bar"}}, RestartPolicy: corev1.RestartPolicyOnFailure},
					},
				},
			},
		},
	}
}

// scheduledJob is the Job cj makes for the run scheduled at t (named
// after t in minutes, as the controller names it), as a subset.
func scheduledJob(cj *batchv1.CronJob, t time.Time) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("%s-%d", cj.Name, t.Unix()/60), Namespace: cj.Namespace,
			Labels: cj.Spec.JobTemplate.Labels, Annotations: map[string]string{"x": "y", batchv1.CronJobScheduledTimestampAnnotation: t.Format(time.RFC3339)},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, batchv1.SchemeGroupVersion.WithKind("CronJob"))},
		},
	}
}

// jobCreate is the create of job (the controller sends it without a
// namespace; the request has one).
func jobCreate(job *batchv1.Job) actions.Action {
	sent := job.DeepCopy()
	sent.Namespace = ""
	a := actions.Create(sent)
	a.Namespace = job.Namespace
	return a
}

// at is the row option that sets the fixture's (and so the
// controller's) clock to t.
func at(t time.Time) []fixture.Option {
	return []fixture.Option{fixture.WithClock(testingclock.NewFakeClock(t))}
}

// cjStatus is cj with status st, for a status write (a subset).
func cjStatus(cj *batchv1.CronJob, st batchv1.CronJobStatus) *batchv1.CronJob {
	cj = cj.DeepCopy()
	cj.Status = st
	return cj
}

// cronJobTable is the CronJob controller's table, in the default mode: the
// controller keeps no expectations and no consistency store, and reads its
// jobs from the informer's indexer, which Refresh keeps up to date (see
// doc.go).
func cronJobTable() fixture.Table[string] {
	return fixture.Table[string]{
		Wire:          CronJob,
		ActionOptions: []actions.Option{actions.Subset()},
		Rows:          onServer(cronJobRows(), cronJobRefused),
	}
}

// cronJobRefused are the rows whose seed kube-apiserver refuses (see
// onServer), with the finding.
var cronJobRefused = map[string]string{
	"warns about a schedule it cannot parse": `spec.schedule: Invalid value: "obvious error schedule": expected exactly 5 fields, found 3`,
}

// ranJob is the Job cj made for the run scheduled at the prior hour,
// created just after it, and the object reference cj's status keeps to it.
//
// Its selector and its template's labels are those the Job strategy
// generates from the Job's uid when it is created. A server would refuse
// them in a create (they name a uid the server has not given), so the seed
// says manualSelector, which keeps them as written: the server then holds
// the Job as the fakes do (the CronJob controller does not read
// manualSelector).
func ranJob(cj *batchv1.CronJob) (*batchv1.Job, corev1.ObjectReference) {
	scheduled := justAfterThePriorHour.Truncate(time.Hour)
	job := scheduledJob(cj, scheduled)
	job.Annotations[batchv1.CronJobScheduledTimestampAnnotation] = scheduled.Format(time.RFC3339)
	job.CreationTimestamp = metav1.NewTime(justAfterThePriorHour)
	job.UID = "prior-job-uid"
	job.Spec = *cj.Spec.JobTemplate.Spec.DeepCopy()
	job.Spec.ManualSelector = ptr.To(true)
	job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: string(job.UID)}}
	job.Spec.Template.Labels = map[string]string{
		batchv1.ControllerUidLabel: string(job.UID), "controller-uid": string(job.UID),
		batchv1.JobNameLabel: job.Name, "job-name": job.Name,
	}
	for k, v := range cj.Spec.JobTemplate.Spec.Template.Labels {
		job.Spec.Template.Labels[k] = v
	}
	return job, corev1.ObjectReference{Kind: "Job", APIVersion: "batch/v1", Namespace: job.Namespace, Name: job.Name, UID: job.UID}
}

func cronJobRows() []fixture.Row {
	invalid := newCronJob(batchv1.AllowConcurrent, errorSchedule)
	allow := newCronJob(batchv1.AllowConcurrent, onTheHour)
	suspended := newCronJob(batchv1.AllowConcurrent, onTheHour)
	suspended.Spec.Suspend = ptr.To(true)
	created := scheduledJob(allow, topOfTheHour)
	ranAt := metav1.NewTime(topOfTheHour)

	// "still active": the prior hour's job runs, the status lists it.
	forbid := newCronJob(batchv1.ForbidConcurrent, onTheHour)
	active, activeRef := ranJob(forbid)
	forbid.Status = batchv1.CronJobStatus{Active: []corev1.ObjectReference{activeRef}, LastScheduleTime: ptr.To(metav1.NewTime(justAfterThePriorHour.Truncate(time.Hour)))}

	// "prev ran but done": the prior hour's job completed 10s after it
	// started; the status still lists it as active.
	done := newCronJob(batchv1.AllowConcurrent, onTheHour)
	completed, completedRef := ranJob(done)
	finished := metav1.NewTime(justAfterThePriorHour.Add(10 * time.Second))
	completed.Status = batchv1.JobStatus{CompletionTime: &finished, StartTime: ptr.To(metav1.NewTime(justAfterThePriorHour)), Succeeded: 1,
		Conditions: []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue},
		}}
	done.Status = batchv1.CronJobStatus{Active: []corev1.ObjectReference{completedRef}, LastScheduleTime: ptr.To(metav1.NewTime(justAfterThePriorHour.Truncate(time.Hour)))}
	doneCreated := scheduledJob(done, topOfTheHour)

	return []fixture.Row{{
		// TestControllerV2SyncCronJob "never ran, not valid schedule, A":
		// one warning, nothing else.
		Name:       "warns about a schedule it cannot parse",
		Objects:    []runtime.Object{invalid},
		Key:        cronJobKey,
		Options:    at(justBeforeTheHour),
		WantEvents: []records.Event{fixture.NewEvent(invalid, corev1.EventTypeWarning, "UnparseableSchedule", `unparseable schedule: "obvious error schedule" : expected exactly 5 fields, found 3: [obvious error schedule]`)},
	}, {
		// TestControllerV2SyncCronJob "never ran, not time, A": no job, a
		// requeue at the next scheduled time (the controller's worker adds
		// the key after the delay the sync returns: see wire.go).
		Name:         "waits for the first scheduled time",
		Objects:      []runtime.Object{allow},
		Key:          cronJobKey,
		Options:      at(justBeforeTheHour),
		WantEnqueued: []records.QueueOp{records.AddedAfter(cronJobKey, time.Minute+nextScheduleDelta)},
	}, {
		// TestControllerV2SyncCronJob "never ran, is time, A": the job of
		// the hour, the status (active, last schedule time), the event,
		// and a requeue at the next hour.
		Name:    "creates the job of a scheduled time",
		Objects: []runtime.Object{allow},
		Key:     cronJobKey,
		Options: at(justAfterTheHour),
		WantActions: []actions.Action{jobCreate(created), actions.UpdateStatus(cjStatus(allow, batchv1.CronJobStatus{
			Active: []corev1.ObjectReference{{Kind: "Job", Namespace: created.Namespace, Name: created.Name}}, LastScheduleTime: &ranAt}))},
		WantEvents:   []records.Event{fixture.NewEvent(allow, corev1.EventTypeNormal, "SuccessfulCreate", "Created job "+created.Name)},
		WantEnqueued: []records.QueueOp{records.AddedAfter(cronJobKey, time.Hour-time.Minute+nextScheduleDelta)},
	}, {
		// TestControllerV2SyncCronJob "never ran, is time, suspended":
		// nothing, not even a requeue.
		Name:    "creates nothing while suspended",
		Objects: []runtime.Object{suspended},
		Key:     cronJobKey,
		Options: at(justAfterTheHour),
	}, {
		// TestControllerV2SyncCronJob "still active, is time, F": the
		// prior job still runs, Forbid creates nothing, says so in an
		// event, and requeues at the next hour.
		Name:         "does not start a job while the last one runs, under Forbid",
		Objects:      []runtime.Object{forbid, active},
		Key:          cronJobKey,
		Options:      at(justAfterTheHour),
		WantEvents:   []records.Event{fixture.NewEvent(forbid, corev1.EventTypeNormal, "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid")},
		WantEnqueued: []records.QueueOp{records.AddedAfter(cronJobKey, time.Hour-time.Minute+nextScheduleDelta)},
	}, {
		// TestControllerV2SyncCronJob "prev ran but done, is time, A": the
		// completed job leaves the active list (lastSuccessfulTime is its
		// completion time, an event says it was seen), the hour's job is
		// created.
		Name:    "records a completed job and starts the next one",
		Objects: []runtime.Object{done, completed},
		Key:     cronJobKey,
		Options: at(justAfterTheHour),
		WantActions: []actions.Action{jobCreate(doneCreated), actions.UpdateStatus(cjStatus(done, batchv1.CronJobStatus{
			Active: []corev1.ObjectReference{{Kind: "Job", Namespace: doneCreated.Namespace, Name: doneCreated.Name}}, LastScheduleTime: &ranAt, LastSuccessfulTime: &finished}))},
		WantEvents: []records.Event{
			fixture.NewEvent(done, corev1.EventTypeNormal, "SawCompletedJob", "Saw completed job: "+completed.Name+", condition: Complete"),
			fixture.NewEvent(done, corev1.EventTypeNormal, "SuccessfulCreate", "Created job "+doneCreated.Name),
		},
		WantEnqueued: []records.QueueOp{records.AddedAfter(cronJobKey, time.Hour-time.Minute+nextScheduleDelta)},
	}}
}

func TestCronJob(t *testing.T) {
	cronJobTable().Run(t)
}
