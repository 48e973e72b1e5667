package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"
)

// Process-level P1: `dpe-tui get (a) --page 1 --format text` as a whole
// process (start-up, open, print) ÷ a process that only json.Unmarshals
// (a) into any (this binary re-executed with unmarshalFlag). Both are
// children of the launcher, run alternately, and rated by their medians;
// CPU time is printed beside (it grows less with the machine's load).
const (
	p1procRuns   = 5
	p1procTarget = 0.10
)

const unmarshalFlag = "-unmarshal-any"

// unmarshalAny is the yardstick process: read the file, unmarshal it.
func unmarshalAny(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func measureP1Process(bin, docA string) figure {
	target := fmt.Sprintf("≤ %.2f", p1procTarget)
	self, err := os.Executable()
	if err != nil {
		return figure{"P1p", "error: " + err.Error(), "-", target, false}
	}
	var get, ref []usage
	for range p1procRuns {
		g, err := childUsage(bin, "get", docA, "--page", "1", "--format", "text")
		if err != nil {
			return figure{"P1p", "error: " + err.Error(), "-", target, false}
		}
		r, err := childUsage(self, unmarshalFlag, docA)
		if err != nil {
			return figure{"P1p", "error: " + err.Error(), "-", target, false}
		}
		get, ref = append(get, g), append(ref, r)
	}
	med := func(us []usage, f func(usage) time.Duration) time.Duration {
		ds := make([]time.Duration, len(us))
		for i, u := range us {
			ds[i] = f(u)
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	wall := func(u usage) time.Duration { return u.wall }
	cpu := func(u usage) time.Duration { return u.cpu }
	gw, rw, gc, rc := med(get, wall), med(ref, wall), med(get, cpu), med(ref, cpu)
	ratio := gw.Seconds() / rw.Seconds()
	return figure{"P1p", fmt.Sprintf("get (a) --page 1 as a process %s ÷ an unmarshal-only process %s, median of %d (CPU %s ÷ %s = %.3f)",
		gw.Round(time.Millisecond), rw.Round(time.Millisecond), p1procRuns, gc.Round(time.Millisecond), rc.Round(time.Millisecond), gc.Seconds()/rc.Seconds()),
		fmt.Sprintf("%.3f", ratio), target, ratio <= p1procTarget}
}
