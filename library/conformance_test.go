package library

import (
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// decodeAll reads a document the library served with the agent side's
// decoder, every page decoded, as an agent reads it.
func decodeAll(t *testing.T, text string) *dpe.Document {
	t.Helper()
	d, err := dpe.Decode([]byte(text), dpe.Limits{})
	if err != nil {
		t.Fatalf("dpe.Decode: %v", err)
	}
	for i := range d.Pages {
		if err := d.EnsurePage(i, dpe.Limits{}); err != nil {
			t.Fatalf("dpe.Decode: %v", err)
		}
	}
	return d
}

// checkConformance feeds a document through the agent side's decoder and
// validator (dpe package): sample documents must be clean — no violations,
// no warnings — except the hostile one, which only has to decode. The
// files in real/ were made by other tools and say what those wrote: a
// note (advice, such as a Word code block that records no language) is
// allowed there.
func checkConformance(t *testing.T, uri, text string) {
	t.Helper()
	d, err := dpe.Decode([]byte(text), dpe.Limits{})
	if err != nil {
		t.Errorf("%s: dpe.Decode: %v", uri, err)
		return
	}
	if strings.HasSuffix(uri, "/"+HostileDocRef) {
		return
	}
	real := strings.Contains(uri, "/real/")
	for _, f := range dpe.Validate(d) {
		if real && f.Severity == dpe.Note {
			continue
		}
		t.Errorf("%s: %s %s at %s: %s", uri, f.Severity, f.Rule, f.Path, f.Message)
	}
}
