package computer

import (
	"strings"
	"testing"
)

func TestResourceFileName(t *testing.T) {
	for uri, want := range map[string]string{
		"demo://resource/dynamic/blob/1":    "1",
		"file:///a/b/report%20final.pdf":    "report_final.pdf",
		"x://h/../../etc/passwd":            "passwd",
		"x://h/.hidden":                     "hidden",
		"x://h/dir/":                        "dir",
		"x://h":                             "h",
		"urn:isbn:0451450523":               "isbn_0451450523",
		"x://h/\x1b[31mevil\u202e.txt":      "31mevil_.txt",
		"x://h/" + strings.Repeat("a", 300): strings.Repeat("a", MaxFileName),
		"x://h/%2e%2e":                      "resource",
	} {
		if got := ResourceFileName(uri); got != want {
			t.Errorf("%q: %q, want %q", uri, got, want)
		}
	}
}
