package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
	code, out, errOut := runStdin(t, "# Notes\n\nSome *text*.\n", "get", "-")
	if code != exitOK || !strings.Contains(out, "# Notes") || !strings.Contains(out, "Some *text*.") {
		t.Errorf("get - of Markdown: exit %d, %q %q", code, out, errOut)
	}
	code, _, errOut = runStdin(t, "\x00\x01\x02binary", "get", "-")
	if code != exitRuntime || !strings.Contains(errOut, "stdin: ") || !strings.Contains(errOut, "name its format: dpe-tui convert --from FORMAT -") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("get - of a binary nothing reads: exit %d, %q", code, errOut)
	}
}

// get -, check - and hash - take what convert - takes: a DOCX piped in
// is converted as convert - converts it (its format known by its content),
// not refused as "not a DPE JSON document" or "not valid UTF-8".
func TestStdin_ConvertibleFilesAreConverted(t *testing.T) {
	docx, err := os.ReadFile(filepath.Join("..", "..", "convert", "testdata", "marks.docx"))
	if err != nil {
		t.Fatal(err)
	}
	_, want, _ := runCLI(t, "get", filepath.Join("..", "..", "convert", "testdata", "marks.docx"), "--format", "text")
	code, out, errOut := runStdin(t, string(docx), "get", "-", "--format", "text")
	if code != exitOK || out == "" || out != want {
		t.Errorf("get - of a DOCX: exit %d, %q\nwant the text get FILE prints: %q", code, out+errOut, want)
	}
	if code, out, errOut := runStdin(t, string(docx), "check", "-"); code != exitOK && code != exitViolations || strings.Contains(errOut, "not a DPE JSON") || !strings.Contains(out, "page(s)") {
		t.Errorf("check - of a DOCX: exit %d, %q %q", code, out, errOut)
	}
	if code, out, errOut := runStdin(t, string(docx), "hash", "-"); code != exitOK || !strings.Contains(out, "dpe1:") {
		t.Errorf("hash - of a DOCX: exit %d, %q %q", code, out, errOut)
	}
}
