package apiserver

import (
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Admission is what kube-apiserver does to the object of a write besides
// its registry strategy's PrepareForCreate and PrepareForUpdate: the
// defaulting of the request's object when it is decoded, and the
// validation of what would be stored. The order is the server's
// (k8s.io/apiserver's create, update and patch handlers, the generic
// registry's rest.BeforeCreate and rest.BeforeUpdate, and
// apiextensions-apiserver's custom resource codec and strategy):
//
//  1. decode: Default, on the request's object (a patch's or an apply's
//     result, which the server decodes or defaults too); for a custom
//     resource, the pruning of unknown fields and the schema's defaults;
//  2. the strategy's PrepareForCreate or PrepareForUpdate (the model's
//     status and generation rules);
//  3. Validate, on the object that would be stored, with the stored one on
//     an update; a finding is a 422 Invalid answer, in the server's words
//     (apierrors.NewInvalid: `Kind.group "name" is invalid: path: ...`);
//  4. the storage (and the no-op check of an update).
//
// Both functions see the object with its kind set (apiVersion and kind),
// and what they are given is a copy the model owns: Default changes it in
// place. A nil function does nothing; a nil *Admission costs nothing.
type Admission struct {
	// Default changes obj as the server's defaulting would. An error is
	// answered as an internal error (500).
	Default func(obj runtime.Object) error
	// Validate returns what the server's validation finds wrong with obj:
	// old is nil on a create and for a seed; subresource is "" or
	// "status".
	Validate func(obj, old runtime.Object, subresource string) field.ErrorList
	// Warn returns the warnings the server gives the client of a write it
	// accepted (its strategy's WarningsOnCreate or WarningsOnUpdate), on
	// what it validated.
	Warn func(obj, old runtime.Object, subresource string) []string
}

// defaults runs the admission's defaulting on obj, the decoded object of a
// write to r.
func (m *Model) defaults(r *Resource, obj runtime.Object) error {
	a := m.Admission
	if a == nil || a.Default == nil {
		return nil
	}
	kind := obj.GetObjectKind()
	gvk := kind.GroupVersionKind()
	kind.SetGroupVersionKind(r.GVK)
	err := a.Default(obj)
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	return nil
}

// warn collects the admission's warnings on obj, what a write to r (its
// subresource sub) accepted over old (nil on a create): the server's
// order, after validation. The caller holds m.mu.
func (m *Model) warn(r *Resource, obj, old runtime.Object, sub string) {
	a := m.Admission
	if a == nil || a.Warn == nil {
		return
	}
	withKind(r, obj, old, func() { m.warnings = append(m.warnings, a.Warn(obj, old, sub)...) })
}

// withKind runs fn with obj and old (when not nil) carrying r's kind, as
// the admission's hooks read it, and restores theirs after.
func withKind(r *Resource, obj, old runtime.Object, fn func()) {
	kind := obj.GetObjectKind()
	gvk := kind.GroupVersionKind()
	kind.SetGroupVersionKind(r.GVK)
	defer kind.SetGroupVersionKind(gvk)
	if old != nil {
		oldKind := old.GetObjectKind()
		oldGVK := oldKind.GroupVersionKind()
		oldKind.SetGroupVersionKind(r.GVK)
		defer oldKind.SetGroupVersionKind(oldGVK)
	}
	fn()
}

// validate runs the admission's validation on obj, what a write to r
// (its subresource sub) would store over old (nil on a create), and
// returns the server's 422 Invalid answer when it finds anything wrong.
func (m *Model) validate(r *Resource, obj, old runtime.Object, sub string) error {
	a := m.Admission
	if a == nil || a.Validate == nil {
		return nil
	}
	var errs field.ErrorList
	withKind(r, obj, old, func() { errs = a.Validate(obj, old, sub) })
	if len(errs) == 0 {
		return nil
	}
	name := ""
	if om, err := meta.Accessor(obj); err == nil {
		name = om.GetName()
	}
	return apierrors.NewInvalid(r.GVK.GroupKind(), name, errs)
}

// Admit runs the admission on a seed object of r, as the server would on
// its create: obj is defaulted in place (pass a copy) and validated; the
// error is the server's answer to the create. Seeds are admitted before
// Seed fills their server-set metadata.
//
// With the server's defaults (Admission.Default), a seeded Pod is also
// held as the server holds a created pod: with what the admission plugins
// give every pod (admitPod), and the QoS class its strategy computes
// where the seed's status names none (its status updates keep it); a
// seeded Node gets TaintNodesByCondition's taint, a claim or a volume
// StorageObjectInUseProtection's finalizer.
func (m *Model) Admit(r *Resource, obj runtime.Object) error {
	if err := m.defaults(r, obj); err != nil {
		return err
	}
	if !r.Custom && m.Admission != nil && m.Admission.Default != nil {
		switch o := obj.(type) {
		case *corev1.Pod:
			admitPod(o)
			if o.Status.QOSClass == "" {
				o.Status.QOSClass = qosClass(o)
			}
		case *corev1.Node:
			admitNode(o)
		case *corev1.PersistentVolumeClaim:
			admitClaim(o)
		case *corev1.PersistentVolume:
			admitVolume(o)
		}
	}
	return m.validate(r, obj, nil, "")
}

// Admits reports whether the model has admission hooks: without them,
// Admit changes nothing and refuses nothing.
func (m *Model) Admits() bool {
	a := m.Admission
	return a != nil && (a.Default != nil || a.Validate != nil)
}
