package library

import (
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// checkConformance feeds a document through the agent side's decoder and
// validator (dpe package): sample documents must be clean — no violations,
// no warnings — except the hostile one, which only has to decode.
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
	for _, f := range dpe.Validate(d) {
		t.Errorf("%s: %s %s at %s: %s", uri, f.Severity, f.Rule, f.Path, f.Message)
	}
}
