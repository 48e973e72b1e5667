package render

import (
	"testing"
)

// Undeclared code is labelled only when the code names its language: a
// "#!" line names its interpreter; Go that chroma's analyser is sure of
// (package, import "fmt") is not labelled go, since the file named no
// language (the frame and an exported fence would guess).
func TestCodeLexer_LabelsOnlyWhatTheCodeNames(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{"#!/bin/bash\necho hi", "bash"},
		{"func main() {\n\tfmt.Println(1)\n}", ""},
		{"package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"a\") }", ""},
		{"x = 1\nprint(x)", ""},
	} {
		el := el(t, "CodeSnippet", tc.code, nil)
		if _, label := codeLexer(el, tc.code); label != tc.want {
			t.Errorf("%q: label %q, want %q", tc.code, label, tc.want)
		}
	}
}
