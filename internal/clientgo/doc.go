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
// It starts no goroutine, and holds no state but a cache of where each
// field it reads is in each type.
package clientgo
