package examples

import (
	"context"
	"fmt"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/parity"
)

// A seed's status that names another seed by its uid names it on the
// server too: a CronJob's status.active lists the Job it owns, by uid. The
// CronJob is created first (it owns the Job), so the fixture writes the
// seeds' statuses once every seed is created, with the uids the server
// gave. Before it did, the server's CronJob listed a uid no Job had, and
// the CronJob controller saw its Job as unexpected and its active Job as
// missing.
func TestSeedStatusNamesSeedsByTheirServerUIDs(t *testing.T) {
	labels := map[string]string{"batch.kubernetes.io/controller-uid": "job-uid"}
	template := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nightly", UID: "cronjob-uid"},
		Spec:       batchv1.CronJobSpec{Schedule: "0 0 * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: template}}},
		Status:     batchv1.CronJobStatus{Active: []corev1.ObjectReference{{Kind: "Job", APIVersion: "batch/v1", Namespace: "default", Name: "nightly-1", UID: "job-uid"}}},
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nightly-1", UID: "job-uid",
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, batchv1.SchemeGroupVersion.WithKind("CronJob"))}},
		Spec: batchv1.JobSpec{ManualSelector: ptr.To(true), Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: template},
	}
	tb := fixture.Table[cache.ObjectName]{
		Wire: func(f *fixture.Fixture) fixture.SyncFunc[cache.ObjectName] {
			cronJobs := f.KubeInformers().Batch().V1().CronJobs().Lister()
			jobs := f.KubeInformers().Batch().V1().Jobs().Lister()
			return func(_ context.Context, key cache.ObjectName) error {
				cj, err := cronJobs.CronJobs(key.Namespace).Get(key.Name)
				if err != nil {
					return err
				}
				for _, ref := range cj.Status.Active {
					j, err := jobs.Jobs(key.Namespace).Get(ref.Name)
					if err != nil {
						return err
					}
					if j.UID != ref.UID {
						return fmt.Errorf("status.active names %s by a uid that is not the Job's", ref.Name)
					}
				}
				return nil
			}
		},
		Rows: []fixture.Row{{Name: "a CronJob and its active Job", Objects: []runtime.Object{cj, job}, Key: "default/nightly"}},
	}
	rep := parity.Compare(t, parity.Shared(t), tb, tb.Rows[0])
	if rep.Fakes.Err != nil || rep.Server.Err != nil {
		t.Errorf("the sync failed (fakes: %v; server: %v):\n%s", rep.Fakes.Err, rep.Server.Err, rep)
	}
	// The server defaults what the fakes leave (no defaulting is given
	// here), and the server's CronJob status keeps the references' uid
	// only as present.
	for _, d := range rep.Divergences {
		if d.Kind != parity.Defaulting && d.Kind != parity.Objects {
			t.Errorf("want no %s divergence: %s", d.Kind, d)
		}
	}
}
