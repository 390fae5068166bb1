// Package delivery feeds the informers a controller asked for from the
// stored world, as a cluster's reflectors and processors would (through
// internal/feed): the world's changes in resourceVersion order, the lags
// a cluster has (Hold, Hide), and the other event orders client-go can
// deliver (DeliverAs, Resync, Probe). The world it feeds from is a Host.
// Its failures are errors.
package delivery
