package kcm

import (
	"os"
	"testing"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/parity"
)

// The tables on client-go's fakes and on a real kube-apiserver, with
// CTRLTEST_KCM_PARITY=1 (and hack/parity-binaries.sh's binaries, or
// CTRLTEST_PARITY_KUBECONFIG); make parity runs them:
//
//	hack/parity-binaries.sh && cd examples/kcm && CTRLTEST_KCM_PARITY=1 go test -run Parity .
//
// Rows with reactors (the stale-cache rows) are skipped there: reactors
// act on the fakes only.
//
// Every divergence is either fixed or declared known with its reason, in
// every row of the five tables, and the tests pass on every run. Fixed in
// the rows, each a seed the server refused or rewrote, now written as the
// server holds it: upstream's Deployments with maxSurge and maxUnavailable
// both 0, ReplicaSets whose selector has a label their template lacks, pod
// names with capitals, a complete Job without its start and completion
// times and SuccessCriteriaMet condition; a CronJob's Job without the
// selector and labels the Job strategy generates (written with
// manualSelector, as a create could not carry the server's uid); a
// DaemonSet without its template-generation annotation, nodes without the
// not-ready taint of TaintNodesByCondition admission, pods without the
// tolerations, priority, preemption policy and QoS class the server gives
// them (the model now admits seeded pods too, with the server's defaults).
// Fixed in the comparison: a CronJob's status.active names its Jobs by
// uid, which the server seeding now carries (the statuses are written once
// every seed is created, with the server's uids), and a Job the sync
// creates carries its uid in its selector and labels, which parity now
// maps like its metadata.uid.
//
// Known, because a server cannot hold the row's world: it ignores a
// created object's deletionTimestamp (the "being deleted" rows) and stamps
// its own creationTimestamp (the CronJob row that schedules from it);
// apps/v1 refuses an empty selector and batch/v1 an unparseable schedule
// (two rows keep those seeds on purpose: they test the controllers'
// guards). Known, because they are not the controllers' verdicts:
// the StatefulSet strategy and admission plugins add fields to the claims
// the controller creates, which it does not read (pods, created or seeded,
// are admitted on both sides: the model admits them with the server's
// defaults); the server
// names generateName pods at random and the broadcaster names event
// objects after the time it records them; the Job controller lists a
// finished Job's pods in its lister's order; and a DaemonSet's
// status counts the pods its informer has delivered (TestDaemonSetParity).

// eventNames is why event objects differ: a broadcaster names an event
// object after the time it records it.
const eventNames = "the broadcaster names an event object after the time it records it"

func runParity(t *testing.T, tb fixture.Table[string], known ...parity.Known) {
	t.Helper()
	if os.Getenv(envParity) != "1" {
		t.Skipf("set %s=1 to run the table on a real API server", envParity)
	}
	parity.Run(t, parity.Shared(t), tb, known...)
}

// TestDeploymentParity: every row's writes, answers (the Conflict of
// "creates the ReplicaSet of a new Deployment" included), error, events
// and objects are the server's, but for these. The controller stamps its
// conditions with its own clock (time.Now, which no wiring can replace):
// parity counts a nested time only as present, so the two sides' stamps
// may fall in different seconds.
func TestDeploymentParity(t *testing.T) {
	const deleting = "a server ignores the deletionTimestamp of an object it creates: the seed is not being deleted there, and the controller rolls it out"
	const emptySelector = "apps/v1 refuses an empty selector (upstream's test dates from extensions/v1beta1); the row tests the controller's own guard"
	known := []parity.Known{
		{Row: "only updates the status of a Deployment being deleted", Kind: parity.ResourceVersion, Reason: deleting},
		{Row: "only updates the status of a Deployment being deleted", Kind: parity.Writes, Reason: deleting},
		{Row: "only updates the status of a Deployment being deleted", Kind: parity.Events, Reason: deleting},
		{Row: "only updates the status of a Deployment being deleted", Kind: parity.Objects, Reason: deleting},
		{Row: "does not sync a Deployment whose selector is empty", Kind: parity.Validation, Reason: emptySelector},
	}
	for _, row := range []string{"creates the ReplicaSet of a new Deployment", "a rollback takes the old template and clears the annotation", "a Recreate rollout scales the old ReplicaSet down first"} {
		known = append(known, parity.Known{Row: row, Kind: parity.Objects, Reason: eventNames})
	}
	runParity(t, deploymentTable(), known...)
}

// TestStatefulSetParity: the writes, answers, errors, events and objects
// are the server's, but for these.
func TestStatefulSetParity(t *testing.T) {
	const deleting = "a server ignores the deletionTimestamp of an object it creates: the seed is not being deleted there, and the controller creates its first pod"
	const row = "creates no pod for a StatefulSet being deleted"
	runParity(t, statefulSetTable(),
		parity.Known{Kind: parity.Objects, Reason: "the broadcaster names an event object after the time it records it; and in " + row + ", " + deleting},
		parity.Known{Row: row, Kind: parity.Writes, Reason: deleting},
		parity.Known{Row: row, Kind: parity.Events, Reason: deleting},
		parity.Known{Row: row, Kind: parity.GenerateName, Reason: deleting},
	)
}

// TestDaemonSetParity: the writes, answers, errors, events and objects are
// the server's, but for these. The rows seed the DaemonSet, its nodes and
// its pods as a server holds them (the template-generation annotation, the
// not-ready taint, the admission plugins' tolerations and preemption
// policy, the QoS class: daemonset_test.go).
//
// The status write counts the pods the informer holds when the sync lists
// them (currentNumberScheduled, updatedNumberScheduled). The fixture's
// default mode delivers a sync's own writes after the sync, so the fakes
// count 0 for the pods the sync created; a real informer has usually
// delivered them by the status write (the server counts 1), and sometimes
// not (0, as the fakes). A server's count is thus a race, on a cluster
// too, and shows in the status write and the stored DaemonSet of the rows
// that launch pods (parity asks the server whether it fills those fields
// itself: it does not, so they are no defaulting); the rows compare those
// counts as a subset.
func TestDaemonSetParity(t *testing.T) {
	const deleting = "a server ignores the deletionTimestamp of an object it creates: the seed is not being deleted there, and the controller launches its pod"
	const counts = "the status counts the pods the sync launched, which the server's informer has usually delivered by the status write (the fakes' default mode delivers them after the sync: see the comment)"
	const randomNames = "the server names a generateName pod at random; the events name the pods"
	const launches = "launches a pod on its one node"
	const deleted = "does nothing while being deleted"
	const selected = "deletes pods on unselected nodes and launches on selected ones"
	runParity(t, daemonSetTable(),
		parity.Known{Row: launches, Kind: parity.Writes, Sometimes: true, Reason: counts},
		parity.Known{Row: launches, Kind: parity.Events, Reason: randomNames},
		parity.Known{Row: launches, Kind: parity.Objects, Reason: eventNames + "; " + counts},
		parity.Known{Row: selected, Kind: parity.Writes, Sometimes: true, Reason: counts},
		parity.Known{Row: selected, Kind: parity.Events, Reason: randomNames},
		parity.Known{Row: selected, Kind: parity.Objects, Reason: eventNames + "; " + counts},
		parity.Known{Row: deleted, Kind: parity.Writes, Reason: deleting + " (and writes a full status)"},
		parity.Known{Row: deleted, Kind: parity.Events, Reason: deleting},
		parity.Known{Row: deleted, Kind: parity.GenerateName, Reason: deleting},
		parity.Known{Row: deleted, Kind: parity.Objects, Reason: deleting + "; " + eventNames},
	)
}

// TestJobParity: the writes, answers, errors and objects are the
// server's, but for these.
func TestJobParity(t *testing.T) {
	runParity(t, jobTable(),
		parity.Known{Row: "starts a job", Kind: parity.Events, Reason: "the server names a generateName pod at random; the events name the pods"},
		parity.Known{Kind: parity.Objects, Reason: "the broadcaster names an event object after the time it records it"},
		parity.Known{Row: "finishes a job", Kind: parity.Writes, Sometimes: true, Reason: "the first status write lists the succeeded pods' uids in the order the lister gives them, a map's: it varies (the finalizer removals, in any order too, are matched unordered, as the row does)"},
	)
}

// TestCronJobParity: the writes, answers, errors, events and objects are
// the server's, but for these. The Jobs the rows seed carry the selector
// and labels the Job strategy generates (cronjob_test.go's ranJob); a
// CronJob's status.active names them by the uids the server gave them (the
// fixture writes a seed's status once every seed is created, with the
// server's uids).
func TestCronJobParity(t *testing.T) {
	const unparseable = "warns about a schedule it cannot parse"
	const scheduled = "creates the job of a scheduled time"
	const created = "a server stamps a created CronJob's creationTimestamp itself, at the run's real time, years after the row's 2016 clock; with no lastScheduleTime the controller schedules from the creation time, finds no scheduled time before its clock, and creates nothing (a seed cannot carry an earlier creationTimestamp; the other rows set lastScheduleTime)"
	runParity(t, cronJobTable(),
		parity.Known{Row: unparseable, Kind: parity.Validation, Reason: "batch/v1 refuses a schedule that does not parse; the row tests the controller's own guard (upstream's)"},
		parity.Known{Row: scheduled, Kind: parity.Writes, Reason: created},
		parity.Known{Row: scheduled, Kind: parity.Events, Reason: created},
		parity.Known{Row: scheduled, Kind: parity.Objects, Reason: created + "; " + eventNames},
		parity.Known{Row: "does not start a job while the last one runs, under Forbid", Kind: parity.Objects, Reason: eventNames},
		parity.Known{Row: "records a completed job and starts the next one", Kind: parity.Objects, Reason: eventNames},
	)
}

// TestReplicaSetParity: the writes, answers, errors, events and objects
// are the server's, but for these. The rows seed their pods as a server
// holds them (replicaset_test.go's rsPod); "does nothing when its pods
// match" and "adopts the orphans its selector matches" are the server's in
// full (its adoptions come in the lister's order, a map's: the row matches
// them unordered, and so does parity).
func TestReplicaSetParity(t *testing.T) {
	const deleting = "a server ignores the deletionTimestamp of an object it creates: the seed is not being deleted there, and the controller adopts the orphan and creates a pod"
	const randomNames = "the server names a generateName pod at random; the events name the pods"
	const burst = "creates a burst of pods, then waits for the informer to show them"
	const other = "does not adopt a pod another controller controls"
	const deleted = "neither adopts nor creates while being deleted"
	runParity(t, replicaSetTable(),
		parity.Known{Row: "deletes the pod too many", Kind: parity.Objects, Reason: eventNames},
		parity.Known{Row: burst, Kind: parity.Events, Reason: randomNames},
		parity.Known{Row: burst, Kind: parity.Objects, Reason: eventNames},
		parity.Known{Row: other, Kind: parity.Events, Reason: randomNames},
		parity.Known{Row: other, Kind: parity.Objects, Reason: eventNames},
		parity.Known{Row: deleted, Kind: parity.Writes, Reason: deleting},
		parity.Known{Row: deleted, Kind: parity.Events, Reason: deleting},
		parity.Known{Row: deleted, Kind: parity.GenerateName, Reason: deleting},
		parity.Known{Row: deleted, Kind: parity.Objects, Reason: deleting + " (and counts them in its status); " + eventNames},
	)
}
