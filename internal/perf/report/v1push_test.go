package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestV1PushFigure runs the push figures alone (they take a minute and
// build the binary): DPE_PERF_V1PUSH=1 go test ./internal/perf/report -run V1Push -v
func TestV1PushFigure(t *testing.T) {
	if os.Getenv("DPE_PERF_V1PUSH") == "" {
		t.Skip("set DPE_PERF_V1PUSH=1 to measure")
	}
	bin := filepath.Join(t.TempDir(), "dpe-tui")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../cmd/dpe-tui").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	for _, f := range measureV1Push(bin) {
		t.Logf("%-5s %-8s %-18s %v %s", f.id, f.value, f.target, f.ok, f.what)
		if strings.HasPrefix(f.what, "error: ") {
			t.Error(f.what)
		}
	}
}
