// Package reach is the one place the servicecontroller example reads and
// writes the cloud-provider service controller's unexported state: its
// sync method (syncService), its two work queues, its event broadcaster
// and recorder (which the controller's Run makes, not New), and its cache
// of the Services it synced before.
//
// Every field it touches is declared once, here (the struct, the field's
// name and its Go type); the sync method is a function linked to it by
// name (go:linkname). reach_test.go checks each against the
// k8s.io/cloud-provider version the module requires and fails naming what
// moved: a bump breaks that test first, never a row with a misread
// pointer. It is examples/kcm's internal/reach, for another controller.
//
// It uses reflect and unsafe to do what upstream's own test does from
// inside the package (newController builds a Controller literal and sets
// controller.cache). Do not use it for anything else.
package reach
