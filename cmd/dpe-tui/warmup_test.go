package main

import (
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// coldPDFCache points the PDF engine's compilation cache at an empty
// directory, so the next PDF compiles PDFium (tens of seconds on a loaded
// machine: each test here pays it once). Under the race detector the
// compiler itself is instrumented and takes minutes: those runs leave it
// to the unraced one.
func coldPDFCache(t *testing.T) {
	t.Helper()
	if testbudget.Race {
		t.Skip("compiling PDFium under -race takes minutes; the unraced run covers it")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
}

func TestConvert_FirstPDFSaysTheEngineIsBeingPrepared_Once(t *testing.T) {
	coldPDFCache(t)
	pdf := convertFixture("pdf/onecolumn.pdf")
	code, out, errOut := runCLI(t, "convert", pdf)
	if code != 0 || !strings.Contains(out, `"elements"`) {
		t.Fatalf("convert: exit %d\n%s\n%.300s", code, errOut, out)
	}
	if want := "dpe-tui: " + convert.PDFEngineNotice + "\n"; errOut != want {
		t.Fatalf("stderr on a cold cache = %q, want exactly %q", errOut, want)
	}
	code, out, errOut = runCLI(t, "convert", pdf)
	if code != 0 || !strings.Contains(out, `"elements"`) {
		t.Fatalf("second convert: exit %d\n%s", code, errOut)
	}
	if errOut != "" {
		t.Fatalf("stderr once the engine is compiled = %q, want nothing", errOut)
	}
	code, out, errOut = runCLI(t, "warmup")
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "the PDF engine is already prepared (") {
		t.Fatalf("warmup after a conversion: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestWarmup_CompilesOnceAndTheFirstPDFIsThenSilent(t *testing.T) {
	coldPDFCache(t)
	code, out, errOut := runCLI(t, "warmup")
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "compiled the PDF engine into ") {
		t.Fatalf("warmup on a cold cache: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "warmup")
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "the PDF engine is already prepared (") {
		t.Fatalf("second warmup: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "convert", convertFixture("pdf/onecolumn.pdf"))
	if code != 0 || !strings.Contains(out, `"elements"`) {
		t.Fatalf("convert after warmup: exit %d\n%s", code, errOut)
	}
	if errOut != "" {
		t.Fatalf("stderr of convert after warmup = %q, want nothing", errOut)
	}
}

func TestWarmup_WithoutACacheFailsInOneLine(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	code, _, errOut := runCLI(t, "warmup")
	if code == 0 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "no cache directory") {
		t.Fatalf("warmup with no cache directory: exit %d, stderr %q", code, errOut)
	}
}
