package render

import (
	"testing"
)

// Undeclared code is labelled only when detection is sure of it: a bash
// shebang is, Go's `func main() {` scored as GDScript is not (the frame and
// an exported fence would name the wrong language).
func TestCodeLexer_LabelsOnlyConfidentDetection(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{"#!/bin/bash\necho hi", "bash"},
		{"func main() {\n\tfmt.Println(1)\n}", ""},
		{"x = 1\nprint(x)", ""},
	} {
		el := el(t, "CodeSnippet", tc.code, nil)
		if _, label := codeLexer(el, tc.code); label != tc.want {
			t.Errorf("%q: label %q, want %q", tc.code, label, tc.want)
		}
	}
}
