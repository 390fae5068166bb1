// Package ctrlruntime runs controller-runtime Reconcilers on ctrltest's world.
package ctrlruntime
