package kcm

import (
	"os"
	"testing"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/parity"
)

// The tables on client-go's fakes and on a real kube-apiserver, with
// CTRLTEST_KCM_PARITY=1 (and hack/parity-binaries.sh's binaries, or
// CTRLTEST_PARITY_KUBECONFIG):
//
//	hack/parity-binaries.sh && cd examples/kcm && CTRLTEST_KCM_PARITY=1 go test -run Parity .
//
// Rows with reactors (the stale-cache rows) are skipped there: reactors
// act on the fakes only.
//
// The first run (2026-11-25) found seeds kube-apiserver refuses, now fixed
// in the tables: upstream's Deployments with maxSurge and maxUnavailable
// both 0, ReplicaSets whose selector has a label their template lacks, pod
// names with capitals, a complete Job without its start and completion
// times and SuccessCriteriaMet condition, a CronJob's Job with a
// hand-written selector. Two rows keep seeds the server refuses on
// purpose, ports of upstream's guards: a Deployment with an empty selector
// and a CronJob with an unparseable schedule.
//
// The Deployment, StatefulSet, DaemonSet and Job tables' divergences are
// classified (parity.Known; TestDeploymentParity's and TestDaemonSetParity's
// comments say what still makes them fail in some runs). The CronJob
// table's are not yet, so its test fails today. All five are opt-in (see doc.go): they are here to be
// run, read and classified, not to gate. What the first run showed of the
// unclassified ones: a server sets a created object's creationTimestamp
// (the CronJob rows' schedule is computed from it, against the rows' 2016
// clock) and ignores its deletionTimestamp (the "being deleted" rows); it
// gives each seed a uid of its own, which parity carries into owner
// references but not into a CronJob's status.active (the two rows with a
// prior Job then see it as unexpected and missing); its
// TaintNodesByCondition admission taints a created Node not-ready, which a
// DaemonSet's pods do not tolerate, until a node lifecycle controller (not
// running) clears it (the DaemonSet rows' pods tolerate that now);
// admission plugins and the strategies' create-time
// fields (a pod's tolerations and qosClass, a claim's status phase, a
// Node's) show as defaulting; event objects are named after the time they
// were recorded, and pods made with generateName are named at random.

func runParity(t *testing.T, tb fixture.Table[string], known ...parity.Known) {
	t.Helper()
	if os.Getenv(envParity) != "1" {
		t.Skipf("set %s=1 to run the table on a real API server", envParity)
	}
	parity.Run(t, parity.Shared(t), tb, known...)
}

// TestDeploymentParity: every row's writes, answers (the Conflict of
// "creates the ReplicaSet of a new Deployment" included), error, events
// and objects are the server's, but for these. It fails in about one run
// of three on a divergence of Writes that is not the controller's: the
// controller stamps its conditions with its own clock (time.Now, which no
// wiring can replace), and the two sides' stamps fall in different
// seconds.
func TestDeploymentParity(t *testing.T) {
	const eventNames = "the broadcaster names an event object after the time it records it"
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
		parity.Known{Kind: parity.Defaulting, Reason: "the StatefulSet strategy sets each claim template's apiVersion and kind; a created pod gets tolerations and a preemption policy from admission plugins and a qosClass from its strategy; a created claim's phase is Pending; the controller reads none of them"},
		parity.Known{Kind: parity.Objects, Reason: "the StorageObjectInUseProtection admission plugin adds kubernetes.io/pvc-protection to each claim; the broadcaster names an event object after the time it records it; and in " + row + ", " + deleting},
		parity.Known{Row: row, Kind: parity.Writes, Reason: deleting},
		parity.Known{Row: row, Kind: parity.Events, Reason: deleting},
		parity.Known{Row: row, Kind: parity.GenerateName, Reason: deleting},
	)
}

// TestDaemonSetParity: the writes, answers, errors, events and objects are
// the server's, but for these. One is the fixture's: its model of the
// DaemonSet strategy does not set the deprecated.daemonset.template.generation
// annotation, which the controller copies into its pods' labels
// (pod-template-generation) and its ControllerRevisions. It fails in about
// one run of four on a divergence of Writes that is not the controller's:
// the status write counts the pods the informer has seen when the sync
// lists them (currentNumberScheduled, updatedNumberScheduled), on either
// side; the rows compare those counts as a subset for that reason, and
// parity.Known cannot say "may occur".
func TestDaemonSetParity(t *testing.T) {
	const deleting = "a server ignores the deletionTimestamp of an object it creates: the seed is not being deleted there, and the controller launches its pod"
	const generation = "the DaemonSet strategy's deprecated.daemonset.template.generation annotation (the fixture's model lacks it), copied by the controller into its ControllerRevisions and its pods' pod-template-generation label"
	const launches = "launches a pod on its one node"
	const deleted = "does nothing while being deleted"
	const selected = "deletes pods on unselected nodes and launches on selected ones"
	runParity(t, daemonSetTable(),
		parity.Known{Kind: parity.Defaulting, Reason: generation + "; kube-apiserver's TaintNodesByCondition admission taints a created Node not-ready (the pods tolerate it); a created pod gets a preemption policy from the Priority admission plugin"},
		parity.Known{Kind: parity.Objects, Reason: generation + "; the broadcaster names an event object after the time it records it; and in " + deleted + ", " + deleting},
		parity.Known{Row: launches, Kind: parity.Events, Reason: "the server names a generateName pod at random; the events name the pods"},
		parity.Known{Row: selected, Kind: parity.Events, Reason: "the server names a generateName pod at random; the events name the pods"},
		parity.Known{Row: deleted, Kind: parity.Writes, Reason: deleting},
		parity.Known{Row: deleted, Kind: parity.Events, Reason: deleting},
		parity.Known{Row: deleted, Kind: parity.GenerateName, Reason: deleting},
	)
}

// TestJobParity: the writes, answers, errors and objects are the
// server's, but for these.
func TestJobParity(t *testing.T) {
	runParity(t, jobTable(),
		parity.Known{Kind: parity.Defaulting, Reason: "a created pod gets tolerations and a preemption policy from admission plugins (DefaultTolerationSeconds, Priority) and a qosClass from the pod strategy; the controller reads none of them"},
		parity.Known{Row: "starts a job", Kind: parity.Events, Reason: "the server names a generateName pod at random; the events name the pods"},
		parity.Known{Kind: parity.Objects, Reason: "the broadcaster names an event object after the time it records it"},
		parity.Known{Row: "finishes a job", Kind: parity.Writes, Reason: "the controller removes the five finalizers from goroutines of its own: their order varies"},
	)
}
func TestCronJobParity(t *testing.T) { runParity(t, cronJobTable()) }
