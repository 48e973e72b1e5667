package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Text piped into convert - is read as what it plainly is (Markdown with
// a heading, else text); --from names what content cannot (CSV); a binary
// nothing reads says how to name the format; get - of a non-JSON says to
// convert it first, not "malformed JSON at byte 0".
func TestConvertStdin_TextFormats(t *testing.T) {
	fileType := func(out string) string {
		var d struct {
			FileType string `json:"file_type"`
			URI      string `json:"uri"`
		}
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("%v: %q", err, out)
		}
		if d.URI != "dpe://local/stdin" {
			t.Errorf("uri %q", d.URI)
		}
		return d.FileType
	}
	for _, c := range []struct {
		in   string
		args []string
		want string
	}{
		{"# Notes\n\nSome *text*.\n", []string{"convert", "-"}, "md"},
		{"just a line of prose, with a comma\n", []string{"convert", "-"}, "txt"},
		{"a,b\n1,2\n", []string{"convert", "--from", "csv", "-"}, "csv"},
		{"Some *text*.\n", []string{"convert", "--from", "MD", "-"}, "md"},
	} {
		code, out, errOut := runStdin(t, c.in, c.args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d, %q", c.args, code, errOut)
		}
		if got := fileType(out); got != c.want {
			t.Errorf("%v of %q: file_type %q, want %q", c.args, c.in, got, c.want)
		}
	}
	code, _, errOut := runStdin(t, "\x00\x01\x02binary", "convert", "-")
	if code != exitRuntime || !strings.Contains(errOut, "name its format with --from (csv,") {
		t.Errorf("binary: exit %d, %q", code, errOut)
	}
	code, _, errOut = runStdin(t, "a\n", "convert", "--from", "xyz", "-")
	if code != exitUsage || !strings.Contains(errOut, "--from xyz: unknown format; use one of csv,") {
		t.Errorf("--from xyz: exit %d, %q", code, errOut)
	}
	code, _, errOut = runStdin(t, "# Notes\n", "get", "-")
	if code != exitRuntime || !strings.Contains(errOut, "stdin: not a DPE JSON document; convert a file first: dpe-tui convert [--from FORMAT] -") {
		t.Errorf("get - of Markdown: exit %d, %q", code, errOut)
	}
}
