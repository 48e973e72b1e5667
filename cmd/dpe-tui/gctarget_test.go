package main

import (
	"runtime/debug"
	"testing"
)

// gcTarget sets GOGC (and a soft memory limit when asked) and its restore
// puts back what was there; a GOGC or GOMEMLIMIT in the environment is the
// user's and is left alone.
func TestGCTarget_SetsAndRestores(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	pct0 := debug.SetGCPercent(137)
	defer debug.SetGCPercent(pct0)
	limit0 := debug.SetMemoryLimit(-1)

	restore := gcTarget(serveGCPercent, 0)
	if got := debug.SetGCPercent(serveGCPercent); got != serveGCPercent {
		t.Errorf("GOGC while serving = %d, want %d", got, serveGCPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != limit0 {
		t.Errorf("memory limit changed to %d with limit 0", got)
	}
	restore()
	if got := debug.SetGCPercent(137); got != 137 {
		t.Errorf("GOGC after restore = %d, want 137", got)
	}

	restore = gcTarget(400, 300<<20)
	if got := debug.SetMemoryLimit(-1); got != 300<<20 {
		t.Errorf("memory limit = %d, want %d", got, 300<<20)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != limit0 {
		t.Errorf("memory limit after restore = %d, want %d", got, limit0)
	}

	t.Setenv("GOGC", "50")
	restore = gcTarget(400, 300<<20)
	if got := debug.SetGCPercent(137); got != 137 {
		t.Errorf("GOGC = %d with GOGC set by the user, want 137 left alone", got)
	}
	if got := debug.SetMemoryLimit(-1); got != limit0 {
		t.Errorf("memory limit = %d with GOGC set by the user, want it left alone", got)
	}
	restore()
}
