package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
)

// Lists that follow each other with nothing between (pandoc's "<!-- -->"
// between two numbered lists, two bulleted ones, two lettered ones) stay
// as many lists in get --format md, for every format pandoc wrote them
// to: pandoc's own CommonMark reader finds in the export the lists it
// finds in the source, item for item. And the Markdown reader's code
// spans come back between backticks, beside its bold and italic.
func TestGet_AdjacentListsStayApartInCommonMark(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		interoptest.Need(t, "pandoc is not installed")
	}
	want := pandocLists(t, "markdown", filepath.Join(realFixtures, "src", "adjacent-lists.md"), nil)
	if len(want) != 6 {
		t.Fatalf("pandoc reads %d lists in the source, want 6: %q", len(want), want)
	}
	for _, file := range []string{"adjacent-lists.md", "adjacent-lists.docx", "adjacent-lists.odt", "adjacent-lists.html"} {
		t.Run(file, func(t *testing.T) {
			code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, file))
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if got := pandocLists(t, "commonmark", "-", []byte(out)); !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("pandoc -f commonmark reads the lists\n%q\nwant\n%q\nin:\n%s", got, want, out)
			}
			if file == "adjacent-lists.md" && !strings.Contains(out, "Run `pumpctl status` first, then **check** the `log` and *sign* it.\n") {
				t.Errorf("code spans, bold and italic not kept:\n%s", out)
			}
		})
	}
}

// pandocLists is every list pandoc reads in a file (or in, for "-"), in
// order: each list its items' text, a label a lettered item's text
// starts with ("a. ") left out, as the export writes those as bullets.
func pandocLists(t *testing.T, from, file string, in []byte) [][]string {
	t.Helper()
	cmd := exec.Command("pandoc", "-f", from, "-t", "json", file)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pandoc -f %s: %v", from, err)
	}
	var doc struct {
		Blocks []json.RawMessage `json:"blocks"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	label := regexp.MustCompile(`^[a-z]+\. `)
	var lists [][]string
	for _, raw := range doc.Blocks {
		var b struct {
			T string          `json:"t"`
			C json.RawMessage `json:"c"`
		}
		if json.Unmarshal(raw, &b) != nil {
			continue
		}
		var items [][]json.RawMessage
		switch b.T {
		case "BulletList":
			_ = json.Unmarshal(b.C, &items)
		case "OrderedList":
			var c []json.RawMessage
			if json.Unmarshal(b.C, &c) == nil && len(c) == 2 {
				_ = json.Unmarshal(c[1], &items)
			}
		default:
			continue
		}
		var texts []string
		for _, it := range items {
			texts = append(texts, label.ReplaceAllString(pandocText(it), ""))
		}
		lists = append(lists, texts)
	}
	return lists
}

// pandocText is the plain text of pandoc JSON blocks or inlines.
func pandocText(parts []json.RawMessage) string {
	var sb strings.Builder
	var walk func(raw json.RawMessage)
	walk = func(raw json.RawMessage) {
		var n struct {
			T string          `json:"t"`
			C json.RawMessage `json:"c"`
		}
		if json.Unmarshal(raw, &n) != nil {
			var list []json.RawMessage
			if json.Unmarshal(raw, &list) == nil {
				for _, x := range list {
					walk(x)
				}
			}
			return
		}
		switch n.T {
		case "Str":
			var s string
			_ = json.Unmarshal(n.C, &s)
			sb.WriteString(s)
		case "Space", "SoftBreak":
			sb.WriteByte(' ')
		case "Code":
			var c []json.RawMessage
			if json.Unmarshal(n.C, &c) == nil && len(c) == 2 {
				var s string
				_ = json.Unmarshal(c[1], &s)
				sb.WriteString(s)
			}
		default:
			walk(n.C)
		}
	}
	for _, p := range parts {
		walk(p)
	}
	return strings.TrimSpace(sb.String())
}
