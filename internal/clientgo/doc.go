// Package clientgo is the one place where ctrltest reads state that
// client-go keeps unexported: the event handlers registered on a shared
// informer, its ListerWatcher, and the informers a generated informer
// factory holds.
//
// Each read is by name and type through reflect, checked before use: when a
// client-go upgrade moves or retypes a field, the function reports false
// (the caller falls back or fails with a clear message) rather than reading
// the wrong memory, and this package's tests fail, naming the field, so the
// upgrade is noticed here and not in a user's test.
//
// It is also where ctrltest makes the supported client-go minors behave
// alike where client-go's own behaviour differs (hack/minors.txt): Watch
// gives a tracker's watch the existing objects 1.36's tracker sends and
// 1.35's does not (TrackerSendsExisting probes which this build has), and
// AwaitSynced waits on a channel where client-go has one (1.36) and polls
// otherwise. Its tests run on every supported minor (make test-minors).
//
// It starts no goroutine, and holds no state but a cache of where each
// field it reads is in each type and what the probe found.
package clientgo
