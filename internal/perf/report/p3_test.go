package main

import (
	"os"
	"testing"
	"time"
)

// serve's CPU during a listing is read from /proc: the fields after a
// command name with spaces and parentheses must still be utime and stime.
func TestProcCPU_CountsThisProcessesCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	before := procCPU(os.Getpid())
	for x, t0 := 0, time.Now(); time.Since(t0) < 100*time.Millisecond; x++ {
		_ = x * x
	}
	if after := procCPU(os.Getpid()); after <= before {
		t.Fatalf("procCPU did not grow over 100 ms of work: %v then %v", before, after)
	}
	if procCPU(-1) != 0 {
		t.Fatal("procCPU of no process is not zero")
	}
}
