package convert_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/hostilefiles"
)

// TestPDFDeadlineEndsACallInFlight: a conversion deadline stops PDFium
// inside one long call (loading a page whose forms fan out), with calls
// unwatched: the kill closes the module and the compiled loop checks end
// the call. It is held to a share of the same page's run to its memory
// limit, measured here, not to a wall-clock budget.
func TestPDFDeadlineEndsACallInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a page to the engine's memory limit (seconds)")
	}
	var file hostilefiles.File
	for _, f := range hostilefiles.All() {
		if f.Name == "pdf-fan-out.pdf" {
			file = f
		}
	}
	path := filepath.Join(t.TempDir(), file.Name)
	if err := hostilefiles.WriteFile(path, file); err != nil {
		t.Fatal(err)
	}
	run := func(timeout time.Duration) (time.Duration, error) {
		c := convert.New(convert.Options{Timeout: timeout})
		defer c.Close()
		if _, _, err := c.PrepareEngine(); err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		_, err := c.ConvertFile(context.Background(), path)
		return time.Since(t0), err
	}
	full, err := run(0)
	var le *dpe.LimitError
	if !errors.As(err, &le) || le.What != "PDF engine memory size" {
		t.Fatalf("without a deadline: want the engine's memory limit, got %v", err)
	}
	cut, err := run(full / 10)
	if !errors.As(err, &le) || le.What != convert.LimitConversionTime {
		t.Fatalf("with a deadline of %v: want %q, got %v", full/10, convert.LimitConversionTime, err)
	}
	if cut > full/2 {
		t.Errorf("stopped after %v at a deadline of %v; the page alone runs %v: the call in flight was not ended", cut, full/10, full)
	}
	t.Logf("page to its memory limit %v; at a deadline of %v stopped after %v", full, full/10, cut)
}
