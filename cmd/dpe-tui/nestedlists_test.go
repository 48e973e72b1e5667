package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
)

// Lists right after lists inside one list item (pandoc's indented
// "<!-- -->" between two numbered and two bulleted nested lists) stay as
// many lists in get --format md, nested in their item, for every format
// pandoc wrote them to: pandoc's own CommonMark reader finds in the
// export the lists, at the depths and with the numbers, it finds in the
// source.
func TestGet_NestedAdjacentListsStayApartInCommonMark(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		interoptest.Need(t, "pandoc is not installed")
	}
	want := pandocNestedLists(t, "markdown", filepath.Join(realFixtures, "src", "nested-lists.md"), nil)
	if len(want) != 5 {
		t.Fatalf("pandoc reads %d lists in the source, want 5: %q", len(want), want)
	}
	for _, file := range []string{"nested-lists.md", "nested-lists.docx", "nested-lists.odt", "nested-lists.html"} {
		t.Run(file, func(t *testing.T) {
			code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, file))
			if code != exitOK || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if got := pandocNestedLists(t, "commonmark", "-", []byte(out)); !slices.Equal(got, want) {
				t.Errorf("pandoc -f commonmark reads the lists\n%q\nwant\n%q\nin:\n%s", got, want, out)
			}
		})
	}
}

// pandocNestedLists is every list pandoc reads in a file (or in, for
// "-"), at any depth, in document order: "depth kind: item | item", kind
// "-" for bullets or the start number of an ordered list, each item its
// own text (not its nested lists').
func pandocNestedLists(t *testing.T, from, file string, in []byte) []string {
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
	var lists []string
	var blocks func(bs []json.RawMessage, depth int)
	blocks = func(bs []json.RawMessage, depth int) {
		for _, raw := range bs {
			var b struct {
				T string          `json:"t"`
				C json.RawMessage `json:"c"`
			}
			if json.Unmarshal(raw, &b) != nil {
				continue
			}
			var items [][]json.RawMessage
			kind := "-"
			switch b.T {
			case "BulletList":
				_ = json.Unmarshal(b.C, &items)
			case "OrderedList":
				var c []json.RawMessage
				if json.Unmarshal(b.C, &c) == nil && len(c) == 2 {
					var attrs []json.RawMessage
					_ = json.Unmarshal(c[0], &attrs)
					if len(attrs) > 0 {
						kind = string(attrs[0])
					}
					_ = json.Unmarshal(c[1], &items)
				}
			default:
				continue
			}
			at := len(lists)
			lists = append(lists, "")
			var texts []string
			for _, it := range items {
				own := it
				if len(it) > 0 {
					own = it[:1] // the item's text; its nested lists follow
				}
				texts = append(texts, pandocText(own))
				blocks(it[min(1, len(it)):], depth+1)
			}
			lists[at] = fmt.Sprintf("%d %s: %s", depth, kind, strings.Join(texts, " | "))
		}
	}
	blocks(doc.Blocks, 0)
	return lists
}
