package main

import (
	"fmt"
	"slices"
	"time"
)

// The start-up guard: `dpe-tui ls computers` on the embedded demo (no
// --url) starts the whole demo office in-process, lists it and exits, so it
// is what everything added to the demo costs before the first answer.
// Whatever joins the demo must start lazily or in the background to keep it.
const (
	startupRuns   = 7
	startupTarget = 250 * time.Millisecond
	startupRSS    = 80e6
)

// measureStartup runs the guard startupRuns times and rates the medians of
// wall time and peak RSS against their targets.
func measureStartup(bin string) []figure {
	tTarget, mTarget := "÷ 0.25 s ≤ 1", "÷ 80 MB ≤ 1"
	var durs, cpus []time.Duration
	var rsss []int64
	for range startupRuns {
		u, err := childUsage(bin, "ls", "computers")
		if err != nil {
			return []figure{{"start", "error: " + err.Error(), "-", tTarget, false}}
		}
		durs, cpus, rsss = append(durs, u.wall), append(cpus, u.cpu), append(rsss, u.rss)
	}
	slices.Sort(durs)
	slices.Sort(cpus)
	slices.Sort(rsss)
	d, m := durs[len(durs)/2], rsss[len(rsss)/2]
	return []figure{
		{"start", fmt.Sprintf("ls computers on the demo, median of %d: %s (fastest %s, slowest %s; CPU median %s)", startupRuns,
			d.Round(time.Millisecond), durs[0].Round(time.Millisecond), durs[len(durs)-1].Round(time.Millisecond), cpus[len(cpus)/2].Round(time.Millisecond)),
			fmt.Sprintf("%.2f", d.Seconds()/startupTarget.Seconds()), tTarget, d <= startupTarget},
		{"start", fmt.Sprintf("its peak RSS, median of %d: %.1f MB (largest %.1f MB)", startupRuns, float64(m)/1e6, float64(rsss[len(rsss)-1])/1e6),
			fmt.Sprintf("%.2f", float64(m)/startupRSS), mTarget, float64(m) <= startupRSS},
	}
}
