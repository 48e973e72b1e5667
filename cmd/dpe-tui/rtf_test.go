package main

import (
	"path/filepath"
	"testing"
)

// An RTF file (LibreOffice's "convert to rtf") is a format the converters
// name and refuse in one line, as a legacy .doc is, with what to convert
// it to: it starts with '{' and was read as a DPE JSON ("malformed JSON at
// byte 1"), which its name and content never said.
func TestGet_RTFRefusedByName(t *testing.T) {
	file := filepath.Join(realFixtures, "refused", "soffice.rtf")
	for _, args := range [][]string{{"get", file, "--format", "md"}, {"get", file, "--format", "json"}, {"convert", file}} {
		code, out, errOut := runCLI(t, args...)
		want := "dpe-tui: " + file + ": unsupported format: RTF; convert it to .docx or .odt first\n"
		if code != exitRuntime || out != "" || errOut != want {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", args, code, out, errOut, want)
		}
	}
}
