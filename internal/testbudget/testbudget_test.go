package testbudget

import (
	"testing"
	"time"
)

// fixed is a test with a deadline of its choosing.
type fixed struct {
	testing.TB
	at time.Time
	ok bool
}

func (f fixed) Deadline() (time.Time, bool) { return f.at, f.ok }

func TestLeft_ComesFromTheDeadlineLessTheMargin(t *testing.T) {
	got := Left(fixed{t, time.Now().Add(10 * time.Minute), true}, time.Second)
	if want := 10*time.Minute - margin; got > want || got < want-time.Minute {
		t.Fatalf("Left = %s, want about %s", got, want)
	}
}

func TestLeft_NeverBelowTheFloor(t *testing.T) {
	if got := Left(fixed{t, time.Now().Add(time.Second), true}, 5*time.Second); got != 5*time.Second {
		t.Fatalf("Left = %s, want the 5s floor", got)
	}
}

func TestLeft_WithoutADeadlineIsTheFallback(t *testing.T) {
	if got := Left(fixed{TB: t}, time.Second); got != fallback {
		t.Fatalf("Left = %s, want %s", got, fallback)
	}
}

func TestUntil_IsNowPlusLeft(t *testing.T) {
	f := fixed{t, time.Now().Add(5 * time.Minute), true}
	if got := time.Until(Until(f, time.Second)); got > 5*time.Minute-margin || got < 5*time.Minute-margin-time.Minute {
		t.Fatalf("Until is %s away", got)
	}
}

func TestLeft_ABenchmarkHasNoDeadline(t *testing.T) {
	var b testing.B
	if got := Left(&b, time.Second); got != fallback {
		t.Fatalf("Left = %s, want %s", got, fallback)
	}
}
