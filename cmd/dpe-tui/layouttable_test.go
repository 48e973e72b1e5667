package main

import (
	"os"
	"strings"
	"testing"
)

// get of a page laid out with tables (libxslt's API pages as Debian
// ships them) prints its headings, code and lists, not one table; the
// menu's items keep their links.
func TestGet_LayoutTablePage(t *testing.T) {
	const file = "/usr/share/doc/libxslt1-dev/html/html/libxslt-templates.html"
	if _, err := os.Stat(file); err != nil {
		t.Skipf("%v (libxslt1-dev not installed)", err)
	}
	code, out, errOut := runCLI(t, "get", "--format", "md", file)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, w := range []string{"\n# The XSLT C library for GNOME\n", "\n## Module templates from libxslt\n", "\n```\n", "\n- [Main Menu](../index.html)\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("%q missing in:\n%.3000s", w, out)
		}
	}
}
