package library

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// A conversion failure is answered with the library's own JSON-RPC code,
// its reason in one line, and what stopped it: the deadline, a budget,
// or anything else (a damaged file).
func TestConversionError_SaysWhatStoppedIt(t *testing.T) {
	tests := []struct {
		err  error
		kind string
	}{
		{fmt.Errorf("slow.docx: %w", &dpe.LimitError{What: convert.LimitConversionTime, Limit: 300, Got: 301}), protocol.ConversionTimeout},
		{fmt.Errorf("big.xlsx: page 1: %w", &dpe.LimitError{What: "output size", Limit: 8, Got: 9}), protocol.ConversionLimit},
		{errors.New("broken.docx: damaged zip archive:\nzip: not a valid zip file"), protocol.ConversionCorrupt},
	}
	for _, tc := range tests {
		je := (&conversionError{err: tc.err}).rpcError()
		var data map[string]string
		if err := json.Unmarshal(je.Data, &data); err != nil {
			t.Fatal(err)
		}
		if je.Code != protocol.MCPCodeConversionFailed || data[protocol.MCPConversionDataKey] != tc.kind || je.Message != errorNote(tc.err) {
			t.Errorf("%v: code %d, data %s, message %q", tc.err, je.Code, je.Data, je.Message)
		}
	}
}
