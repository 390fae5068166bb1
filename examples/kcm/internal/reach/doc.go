// Package reach is the one place the kcm examples read and write
// kube-controller-manager controllers' unexported state: the sync handler
// (a func field, or an unexported method), the work queue, the event
// broadcaster and the clock that each controller's constructor keeps to
// itself.
//
// Every field it touches is declared once, in this package, as a [Field]
// (the struct, the field's name and its Go type); every method, as a
// function linked to it by name. reach_test.go checks each against the
// k8s.io/kubernetes version the module requires, and fails naming the
// field (or method) that moved, was renamed or changed type: a bump of
// k8s.io/kubernetes breaks that test first, never a row with a
// misread pointer.
//
// It uses reflect and unsafe to do what upstream's own tests do from
// inside the controllers' packages (dc.syncHandler, dc.queue = ...). Do not
// use it for anything else: the controllers' exported API is the contract,
// this package is not.
package reach
