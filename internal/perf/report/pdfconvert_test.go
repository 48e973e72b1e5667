package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary be childUsage's launcher, as the report
// command is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == launcherFlag {
		os.Exit(launch(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// TestPDFFigure runs the PDF figures alone (they build the binary and need
// Debian's manuals, qpdf and pdftotext):
// DPE_PERF_PDF=1 go test ./internal/perf/report -run PDFFigure -v
// ($DPE_PERF_BIN measures that binary instead of this tree's, to compare
// a change with main).
func TestPDFFigure(t *testing.T) {
	if os.Getenv("DPE_PERF_PDF") == "" {
		t.Skip("set DPE_PERF_PDF=1 to measure")
	}
	bin := os.Getenv("DPE_PERF_BIN")
	if bin == "" {
		bin = filepath.Join(t.TempDir(), "dpe-tui")
		if out, err := exec.Command("go", "build", "-o", bin, "../../../cmd/dpe-tui").CombinedOutput(); err != nil {
			t.Fatalf("build: %v\n%s", err, out)
		}
	}
	for _, f := range measurePDF(bin) {
		t.Logf("%-5s %-8s %-18s %v %s", f.id, f.value, f.target, f.ok, f.what)
		if strings.HasPrefix(f.what, "error: ") {
			t.Error(f.what)
		}
	}
}
