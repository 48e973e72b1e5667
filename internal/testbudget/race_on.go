//go:build race

package testbudget

// Race says the binary runs under the race detector, which makes
// single-goroutine CPU work 5-20 times slower: a test that measures
// allocations, memory or a scan of a large input skips under it (CI runs
// those packages again without it).
const Race = true
