// Package testbudget gives a test's waits their bound from the test's own
// deadline (go test -timeout) instead of a fixed wall-clock budget: on a
// loaded 2-core machine, under -race, a wait that takes 3 s alone can take
// a minute, and a fixed 60 s bound then fails a test whose code is right.
// A wait that never ends still fails, with the test's own message, shortly
// before go test would kill the binary without one.
package testbudget

import (
	"testing"
	"time"
)

// margin is kept back from the deadline for the failure report and the
// test's cleanups (closing servers, stopping programs).
const margin = 30 * time.Second

// fallback bounds a wait when the test has no deadline (-timeout 0).
const fallback = 10 * time.Minute

// Left is how long a wait in t may take: the time left before t's
// deadline less a margin for the report and the cleanups, and at least
// floor (a wait keeps its own bound when the deadline is closer than
// that: go test then reports the hang itself). A *testing.T has a
// deadline; a testing.TB without a Deadline method (a benchmark's) counts
// as having none.
func Left(t testing.TB, floor time.Duration) time.Duration {
	var d time.Time
	ok := false
	if dt, has := t.(interface{ Deadline() (time.Time, bool) }); has {
		d, ok = dt.Deadline()
	}
	if !ok {
		return max(fallback, floor)
	}
	return max(time.Until(d)-margin, floor)
}

// Until is the instant a wait in t gives up: now plus Left(t, floor).
func Until(t testing.TB, floor time.Duration) time.Time {
	return time.Now().Add(Left(t, floor))
}
