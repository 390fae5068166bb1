package kcm

import (
	"fmt"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/actions"
	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
	"github.com/ctrltest/ctrltest/records"
)

// newJob is upstream's newJob (job_controller_test.go): "foobar",
// NonIndexed, with a fixed uid.
func newJob(parallelism, completions, backoffLimit int32) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "foobar", Namespace: metav1.NamespaceDefault, UID: "job-uid"},
		Spec: batchv1.JobSpec{
			Selector:       &metav1.LabelSelector{MatchLabels: fooBar},
			ManualSelector: ptr.To(true),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: fooBar},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "foo", Image: "foo/bar"}}, RestartPolicy: corev1.RestartPolicyNever},
			},
			Parallelism:    ptr.To(parallelism),
			Completions:    ptr.To(completions),
			BackoffLimit:   ptr.To(backoffLimit),
			CompletionMode: ptr.To(batchv1.NonIndexedCompletion),
		},
	}
}

// jobPods are upstream's newPodList: n pods of job in phase, with the
// tracking finalizer, named pod-<phase>-<i> (lower case, as the server
// requires), each with a uid (a finished Job's status lists its pods by
// uid); ready when ready is true.
func jobPods(n int, phase corev1.PodPhase, job *batchv1.Job, ready bool) []runtime.Object {
	var out []runtime.Object
	for i := range n {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("pod-%s-%d", strings.ToLower(string(phase)), i), Namespace: job.Namespace, Labels: job.Spec.Selector.MatchLabels,
				UID:             types.UID(fmt.Sprintf("pod-%s-%d-uid", strings.ToLower(string(phase)), i)),
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))},
				Finalizers:      []string{batchv1.JobTrackingFinalizer},
			},
			Spec:   *job.Spec.Template.Spec.DeepCopy(),
			Status: corev1.PodStatus{Phase: phase},
		}
		if phase != corev1.PodPending && phase != corev1.PodRunning {
			pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "foo", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: metav1.NewTime(fixedClock().Now())}}}}
		}
		if ready {
			pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}
		out = append(out, pod)
	}
	return out
}

func jobTable() fixture.Table[string] {
	return fixture.Table[string]{
		Wire:          Job,
		Options:       []fixture.Option{kube.Server(), fixture.WithClock(fixedClock())},
		ActionOptions: []actions.Option{actions.Subset()},
		Rows:          jobRows(),
	}
}

// jobStatus is job with status st, for a status write (a subset).
func jobStatus(job *batchv1.Job, st batchv1.JobStatus) *batchv1.Job {
	job = job.DeepCopy()
	job.Status = st
	return job
}

// jobPodCreate is the create of a pod of job (generateName "foobar-").
func jobPodCreate(job *batchv1.Job) actions.Action {
	a := actions.Create(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: job.Name + "-", Labels: job.Spec.Template.Labels,
		Finalizers: []string{batchv1.JobTrackingFinalizer}}})
	a.Namespace = job.Namespace // the request's; the controller's pod has none
	return a
}

// finalizerRemoved is the patch that removes the tracking finalizer of pod.
func finalizerRemoved(pod runtime.Object) actions.Action {
	return actions.Patch(pod, types.StrategicMergePatchType, nil).Where(func(got actions.Action) error {
		if !strings.Contains(string(got.Patch), "$deleteFromPrimitiveList/finalizers") || !strings.Contains(string(got.Patch), batchv1.JobTrackingFinalizer) {
			return fmt.Errorf("the patch %s does not remove the tracking finalizer", got.Patch)
		}
		return nil
	})
}

func jobRows() []fixture.Row {
	started := ptr.To(metav1.NewTime(fixedClock().Now()))
	start := newJob(2, 5, 6)
	complete := newJob(1, 1, 6)
	// Complete as the server requires it: the start and completion times
	// and the SuccessCriteriaMet condition beside Complete (upstream's has
	// the Complete condition only).
	complete.Status = batchv1.JobStatus{StartTime: started, CompletionTime: started, Succeeded: 1, Conditions: []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue},
	}}
	// Pods 0 and 1 ready, pod 2 not: the controller deletes the pod that
	// ranks lowest (controller.ActivePods), among equals whichever its
	// lister gives first.
	running := jobPods(3, corev1.PodRunning, start, true)
	running[2].(*corev1.Pod).Status.Conditions = nil
	succeeded := jobPods(5, corev1.PodSucceeded, start, false)
	// The uids of the succeeded pods, in an order that varies.
	finished := []actions.Action{actions.UpdateStatus(start).Where(func(got actions.Action) error {
		job, ok := got.Object.(*batchv1.Job)
		if !ok || job.Status.UncountedTerminatedPods == nil || len(job.Status.UncountedTerminatedPods.Succeeded) != 5 || job.Status.Succeeded != 0 {
			return fmt.Errorf("the status does not list 5 uncounted succeeded pods: %+v", got.Object)
		}
		return nil
	})}
	for _, pod := range succeeded {
		finished = append(finished, finalizerRemoved(pod))
	}
	met := "Reached expected number of succeeded pods"
	finished = append(finished, actions.UpdateStatus(jobStatus(start, batchv1.JobStatus{StartTime: started, Succeeded: 5, CompletionTime: started,
		Conditions: []batchv1.JobCondition{
			{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached, Message: met},
			{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonCompletionsReached, Message: met},
		}})))

	return []fixture.Row{{
		// TestControllerSyncJob "job start": 2 creates, 2 active.
		Name:        "starts a job",
		Objects:     []runtime.Object{start},
		Key:         "default/foobar",
		WantActions: []actions.Action{jobPodCreate(start), jobPodCreate(start), actions.UpdateStatus(jobStatus(start, batchv1.JobStatus{StartTime: started, Active: 2}))},
		WantEvents: []records.Event{
			fixture.NewEvent(start, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: foobar-00001"),
			fixture.NewEvent(start, corev1.EventTypeNormal, "SuccessfulCreate", "Created pod: foobar-00002"),
		},
	}, {
		// TestControllerSyncJob "pending pods": no create, 2 active.
		Name:        "waits for pending pods",
		Objects:     cat([]runtime.Object{start}, jobPods(2, corev1.PodPending, start, false)),
		Key:         "default/foobar",
		WantActions: []actions.Action{actions.UpdateStatus(jobStatus(start, batchv1.JobStatus{StartTime: started, Active: 2}))},
	}, {
		// TestControllerSyncJob "too many active pods": one delete, after
		// its finalizer's removal (the one pod patch), 2 active (and
		// ready), 1 terminating.
		Name:        "deletes a pod too many",
		Objects:     cat([]runtime.Object{start}, running),
		Key:         "default/foobar",
		WantActions: []actions.Action{finalizerRemoved(running[2]), actions.Delete(running[2]), actions.UpdateStatus(jobStatus(start, batchv1.JobStatus{StartTime: started, Active: 2, Ready: ptr.To[int32](2), Terminating: ptr.To[int32](1)}))},
		WantEvents:  []records.Event{fixture.NewEvent(start, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted pod: pod-running-2")},
	}, {
		// TestControllerSyncJob "job finish": the 5 succeeded pods are
		// counted (uncounted first, then their finalizers removed, 5
		// patches, concurrently: unordered), the job completes.
		Name:          "finishes a job",
		Objects:       cat([]runtime.Object{start}, succeeded),
		Key:           "default/foobar",
		WantActions:   finished,
		ActionOptions: []actions.Option{actions.Unordered()},
		WantEvents:    []records.Event{fixture.NewEvent(start, corev1.EventTypeNormal, "Completed", "Job completed")},
	}, {
		// TestSyncJobComplete: no write, the conditions stay.
		Name:    "leaves a complete job alone",
		Objects: []runtime.Object{complete},
		Key:     "default/foobar",
	}, {
		// TestSyncJobDeleted: no create, no delete.
		Name:    "does nothing for a deleted job",
		Objects: []runtime.Object{fixture.Absent(newJob(1, 1, 6))},
		Key:     "default/foobar",
	}}
}

func TestJob(t *testing.T) {
	jobTable().Run(t)
}
