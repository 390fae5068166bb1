// Package trackers holds the object trackers the store of the fakes uses
// besides client-go's own: a field-managed tracker (managed fields and
// server-side apply at a fraction of client-go's cost), the field managers
// of a registration's kinds, and a wrapper that fits client-go's
// field-managed tracker to the real plurals of a registration.
package trackers
