package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// overfullPage is a page object at page_index idx with one element more
// than the default per-page limit allows.
func overfullPage(idx string) string {
	els := strings.Repeat("{},", dpe.DefaultMaxElementsPerPage) + "{}"
	return `{"page_index":` + idx + `,"elements":[` + els + `]}`
}

// Pages are named as the user counts them, from 1 (as --page and the
// TUI do), in every command's message about the second page of a
// document, inline or fetched from a manifest page's uri, and the page
// is named once.
func TestPageNumbers_OneBasedInMessages(t *testing.T) {
	dir := t.TempDir()
	first := `{"page_index":0,"elements":[{"category":"Text","text":"one"}]}`
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inline := write("inline.json", `{"file_type":"x","pages":[`+first+`,`+overfullPage("1")+`]}`)
	write("p2.json", overfullPage("1"))
	manifest := write("manifest.json", `{"file_type":"x","pages":[`+first+`,{"page_index":1,"uri":"p2.json"}]}`)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"get", inline, "--page", "2"}, "elements on page 2 over the limit: 200001 > 200000"},
		{[]string{"get", inline}, "elements on page 2 over the limit"},
		{[]string{"check", inline}, "elements on page 2 over the limit"},
		{[]string{"hash", inline}, "elements on page 2 over the limit"},
		{[]string{"get", manifest, "--page", "2"}, "dpe-tui: page 2: elements over the limit: 200001 > 200000\n"},
		{[]string{"get", manifest}, "dpe-tui: page 2: elements over the limit: 200001 > 200000\n"},
	} {
		code, _, errOut := runCLI(t, tt.args...)
		if code == 0 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want %q", strings.Join(tt.args, " "), code, errOut, tt.want)
		}
		if strings.Contains(errOut, "page 1") || strings.Count(errOut, "page ") != 1 {
			t.Errorf("%s: stderr %q names the page other than once, as page 2", strings.Join(tt.args, " "), errOut)
		}
	}
}
