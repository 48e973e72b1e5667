package convert

import (
	"context"
	"testing"
)

// TestPDFUnwatchCalls holds the wazero this build uses to the field
// pdfUnwatchCalls switches: when a new version moves it, this fails
// instead of every conversion silently paying a goroutine per call.
func TestPDFUnwatchCalls(t *testing.T) {
	c := New(Options{})
	defer c.Close()
	if _, err := c.pdf.start(); err != nil {
		t.Fatal(err)
	}
	inst, release, err := c.pdf.instance(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	defer inst.Close()
	f, ok := pdfWatchSwitch(inst)
	if !ok {
		t.Fatal("wazero's ensureTermination is not where pdfWatchSwitch looks: calls stay watched")
	}
	if f.Bool() {
		t.Fatal("calls are still watched after the engine started")
	}
}
