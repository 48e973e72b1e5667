package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// get --format md and text leave a document's running header and footer
// (python-docx's section header and footer) out; --furniture keeps them on
// every page, and the title is then not taken for the first line.
func TestGet_FurnitureLeftOutUnlessAsked(t *testing.T) {
	file := filepath.Join(realFixtures, "python-docx-furniture.docx")
	for _, format := range []string{"md", "text"} {
		code, out, errOut := runCLI(t, "get", "--format", format, file)
		if code != exitOK || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", format, code, errOut)
		}
		if strings.Contains(out, "Duty office") || strings.Contains(out, "Printed for the night shift") {
			t.Errorf("%s: furniture in the export:\n%s", format, out)
		}
		if !strings.Contains(out, "The night was quiet.") || !strings.Contains(out, "Keys returned to the desk.") {
			t.Errorf("%s: body missing:\n%s", format, out)
		}
		code, out, errOut = runCLI(t, "get", "--format", format, "--furniture", file)
		if code != exitOK || errOut != "" {
			t.Fatalf("%s --furniture: exit %d, stderr %q", format, code, errOut)
		}
		if n := strings.Count(out, "Duty office - internal"); n != 2 {
			t.Errorf("%s --furniture: header %d times, want once per page (2):\n%s", format, n, out)
		}
		if n := strings.Count(out, "Printed for the night shift"); n != 2 {
			t.Errorf("%s --furniture: footer %d times, want 2:\n%s", format, n, out)
		}
	}
	_, out, _ := runCLI(t, "get", "--format", "md", file)
	if n := strings.Count(out, "# Shift report"); n != 1 {
		t.Errorf("md: the title %d times, want once:\n%s", n, out)
	}
}
