// Package kcm tests kube-controller-manager's own controllers (Deployment,
// StatefulSet, DaemonSet, Job and CronJob, k8s.io/kubernetes v1.37.1) with
// ctrltest, each built by its real constructor on the fixture's clientset
// and informer factory, with every default check on.
package kcm
