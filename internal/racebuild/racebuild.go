//go:build !race

// Package racebuild says whether the binary was built with -race, for the
// tests that cut a full-size case down under the race detector (which
// makes the JSON hops of a large document tens of times slower) and leave
// the full size to the run without it (.ci/run).
package racebuild

// Enabled is true in a -race build.
const Enabled = false
