package kcm

import (
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/scheme"

	"github.com/ctrltest/ctrltest/fixture"
	"github.com/ctrltest/ctrltest/kube"
)

// onServer gives each row kube-apiserver's defaulting and validation
// (kube.Server()), but the rows named in refused: their seed is an object
// kube-apiserver v1.37 refuses (upstream's test of the controller's own
// guard against it dates from an API version that allowed it), so
// kube.Server() would fail them before their sync, naming the field. They
// keep the server's defaulting alone (fixture.WithDefaulting(kube.Default))
// and test the guard, as upstream's test does; their Parity test declares
// the refusal (parity.Validation). refused maps a row's name to the
// server's reason; a name no row has panics (a renamed row must not lose
// its validation silently).
func onServer(rows []fixture.Row, refused map[string]string) []fixture.Row {
	found := 0
	for i := range rows {
		opt := kube.Server()
		if _, ok := refused[rows[i].Name]; ok {
			opt, found = fixture.WithDefaulting(kube.Default), found+1
		}
		rows[i].Options = append([]fixture.Option{opt}, rows[i].Options...)
	}
	if found != len(refused) {
		panic("onServer: a row named in refused is not in the table")
	}
	return rows
}

// TestRefusedSeeds: kube.Server() refuses the seeds of the rows onServer
// exempts, with kube-apiserver's message; without the exemption the row
// would fail, so an exemption that is no longer needed shows here.
func TestRefusedSeeds(t *testing.T) {
	for _, tc := range []struct {
		rows    []fixture.Row
		refused map[string]string
	}{{deploymentRows(), deploymentRefused}, {cronJobRows(), cronJobRefused}} {
		for _, row := range tc.rows {
			want, ok := tc.refused[row.Name]
			if !ok {
				continue
			}
			obj := row.Objects[0].DeepCopyObject()
			gvks, _, err := scheme.Scheme.ObjectKinds(obj)
			if err != nil {
				t.Fatal(err)
			}
			obj.GetObjectKind().SetGroupVersionKind(gvks[0])
			kube.Default(obj)
			if got := kube.Validate(fixture.Validation{Object: obj}).ToAggregate(); got == nil || !strings.Contains(got.Error(), want) {
				t.Errorf("row %q: kube.Validate of its seed: %v; want a finding with %q", row.Name, got, want)
			}
		}
	}
}
