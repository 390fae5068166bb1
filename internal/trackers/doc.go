// Package trackers holds the object trackers the store of the fakes uses
// besides client-go's own: a field-managed tracker (managed fields and
// server-side apply at a fraction of client-go's cost), the field managers
// of a registration's kinds, a wrapper that fits client-go's
// field-managed tracker to the real plurals of a registration, and one
// whose lists have a resourceVersion on client-go 1.35 (Versioned).
package trackers
