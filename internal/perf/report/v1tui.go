package main

import "fmt"

// measureV1TUI is the DPE v1 browser's figure: opening a 10,000-page
// skeleton from our own remote on loopback (get_skeleton, every page
// rehashed, the screen installed and drawn), through the ui model.
func measureV1TUI() figure {
	const target = "< 300 ms"
	m, err := benchMetrics("./ui/", "BenchmarkV1TUI_OpenSkeleton10000Pages", "3x")
	if err != nil {
		return figure{"V1", "error: " + err.Error(), "-", target, false}
	}
	ms := m["BenchmarkV1TUI_OpenSkeleton10000Pages"]["skeleton-ms/op"]
	return figure{"V1", fmt.Sprintf("TUI opens a 10,000-page DPE v1 skeleton in %.0f ms", ms), fmt.Sprintf("%.0f ms", ms), target, ms > 0 && ms < 300}
}
