package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/internal/plural"
	"github.com/dpe-tui/dpe-tui/render"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// exitDiffer is diff's "the documents differ" (doc_hashes not equal).
const exitDiffer = 5

// maxDiffText bounds the text shown for one element (display cells).
const maxDiffText = 100

type diffFlags struct {
	globalFlags
	Computer string
	Format   string
}

func (a *app) diffCmd() *cobra.Command {
	f := &diffFlags{}
	cmd := &cobra.Command{
		Use:   "diff A B",
		Short: "Show what changed between two documents (exit 5 when they differ)",
		Long: "diff compares two documents, each a dpe:// URI, file, URL or - (standard input, for one of them):\n" +
			"the delta of element contents, reading order, and each changed page's elements. It exits 0 when\n" +
			"the doc_hashes are equal and 5 when they differ.",
		Example: `  dpe-tui diff old.dpe.json new.dpe.json
  dpe-tui diff old.dpe.json - --format md < new.dpe.json`,
		Args: exactArgs(2, "diff needs two documents: each a dpe:// URI, file path, URL or -"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a.with(&f.globalFlags, "diff")
			differ, err := diffDocs(a.ctx, f, args, a.stdin, a.stdout, a.stderr)
			if err != nil {
				printProblems(err, a.stderr)
				return err
			}
			if differ {
				a.code = exitDiffer
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.Computer, "computer", "", "computer to ask for dpe:// URIs (default: the one that knows the host)")
	fs.StringVar(&f.Format, "format", "text", "text, md or json")
	return cmd
}

// diffDocs implements `diff A B`: whether the doc_hashes differ.
func diffDocs(ctx context.Context, f *diffFlags, pos []string, stdin io.Reader, stdout, stderr io.Writer) (bool, error) {
	if err := f.validate(); err != nil {
		return false, err
	}
	if pos[0] == "-" && pos[1] == "-" {
		return false, usageErrorf("diff can read only one of its documents from stdin")
	}
	switch f.Format {
	case "text", "md", "json":
	default:
		return false, usageErrorf("--format must be text, md or json, not %q", f.Format)
	}
	a, err := hashInput(ctx, &f.globalFlags, f.Computer, pos[0], stdin, stderr)
	if err != nil {
		return false, err
	}
	b, err := hashInput(ctx, &f.globalFlags, f.Computer, pos[1], stdin, stderr)
	if err != nil {
		return false, err
	}
	c := identity.DiffTables(a, b, render.ObjectGrid)
	meta := metaChanges(a.DocMeta, b.DocMeta)
	switch f.Format {
	case "json":
		out, err := json.MarshalIndent(c, "", "  ")
		if err != nil {
			return false, err
		}
		if _, err := stdout.Write(append(out, '\n')); err != nil {
			return false, err
		}
	case "md":
		writeDiff(stdout, c, meta, true)
	default:
		writeDiff(stdout, c, meta, false)
	}
	return !c.Equal, nil
}

// pageLabel names a changed page by its positions (pages have no number,
// DPE v1 core §2.2), counted from 1 as hash's "page N": "2", or "2 → 3"
// when it moved.
func pageLabel(p identity.PageChange) string {
	switch {
	case p.OldIndex < 0:
		return strconv.Itoa(p.NewIndex + 1)
	case p.NewIndex < 0 || p.OldIndex == p.NewIndex:
		return strconv.Itoa(p.OldIndex + 1)
	}
	return strconv.Itoa(p.OldIndex+1) + " → " + strconv.Itoa(p.NewIndex+1)
}

// writeDiff prints the delta, then each changed page and its elements.
// Element text is untrusted: one sanitized, truncated line each.
func writeDiff(w io.Writer, c *identity.Changes, meta []string, md bool) {
	head, item, code := "", "", func(h identity.Hash) string { return string(h) }
	if md {
		head, item = "## ", "- "
		code = func(h identity.Hash) string { return "`" + string(h) + "`" }
	}
	if c.Equal {
		fmt.Fprintf(w, "%sequal: doc_hash %s\n", head, code(c.NewDocHash))
	} else {
		fmt.Fprintf(w, "%sdiffer: doc_hash %s → %s\n", head, code(c.OldDocHash), code(c.NewDocHash))
	}
	if md {
		fmt.Fprintln(w)
	}
	if ops := opCounts(c); ops != "" {
		fmt.Fprintf(w, "%schanges: %s\n", item, ops)
	}
	// The delta counts element content hashes: an element changed in
	// place is one hash removed and one added, so it is said apart from
	// the changes listed below.
	fmt.Fprintf(w, "%sdelta of element hashes: added %d, removed %d, retained %d\n", item, c.Delta.Added, c.Delta.Removed, c.Delta.Retained)
	if c.OrderChanged {
		fmt.Fprintf(w, "%sreading order changed\n", item)
	}
	if c.FileTypeChanged {
		fmt.Fprintf(w, "%sfile_type changed\n", item)
	}
	if c.TitleChanged {
		fmt.Fprintf(w, "%stitle changed\n", item)
	}
	if c.DocMetaChanged {
		fmt.Fprintf(w, "%sdoc_metadata changed\n", item)
		for _, m := range meta {
			if md {
				fmt.Fprintf(w, "  - %s\n", mdEscape(m))
			} else {
				fmt.Fprintf(w, "  %s\n", m)
			}
		}
	}
	for _, p := range c.Pages {
		var notes []string
		if p.TitleChanged {
			notes = append(notes, "title changed")
		}
		if p.MetaChanged {
			notes = append(notes, "page_metadata changed")
		}
		if len(p.MetadataChanged) > 0 {
			notes[len(notes)-1] += ": " + fieldNames(p.MetadataChanged)
		}
		extra := ""
		if len(notes) > 0 {
			extra = ", " + strings.Join(notes, ", ")
		}
		if md {
			fmt.Fprintf(w, "\n### page %s (%s%s)\n\n", pageLabel(p), p.Status, extra)
		} else {
			fmt.Fprintf(w, "page %s (%s%s)\n", pageLabel(p), p.Status, extra)
		}
		for _, e := range p.Elements {
			mark := map[string]string{"added": "+", "removed": "-", "moved": "~", "changed": "±"}[e.Op]
			text := sanitize.Truncate(sanitize.Line(e.Text), maxDiffText)
			if len(e.Cells) > 0 {
				text = cellSummary(e.Cells) // the cells below, not the table's whole text
			}
			if md {
				fmt.Fprintf(w, "- %s %s #%d %s: %s\n", mark, e.Op, e.Index+1, "`"+sanitize.Line(e.Category)+"`", mdEscape(text))
			} else {
				fmt.Fprintf(w, "  %s %-7s #%d %s: %s\n", mark, e.Op, e.Index+1, sanitize.Line(e.Category), text)
			}
			for _, l := range changedLines(e) {
				if md {
					fmt.Fprintf(w, "  - %s\n", mdEscape(l))
				} else {
					fmt.Fprintf(w, "      %s\n", l)
				}
			}
		}
	}
}

// opCounts counts the elements listed below by what happened to them
// ("2 added, 3 removed, 4 changed"), in the units the listing uses.
func opCounts(c *identity.Changes) string {
	n := map[string]int{}
	for _, p := range c.Pages {
		for _, e := range p.Elements {
			n[e.Op]++
		}
	}
	var parts []string
	for _, op := range []string{"added", "removed", "changed", "moved"} {
		if n[op] > 0 {
			parts = append(parts, strconv.Itoa(n[op])+" "+op)
		}
	}
	return strings.Join(parts, ", ")
}

// maxCellChanges bounds the cells diff lists for one table.
const maxCellChanges = 20

// changedLines says what changed in a changed element, one line each:
// its metadata by field name (and value), its table by cell (row and
// column counted from 1, as a reader counts them, and the column's
// header), else which members of the element differ. Everything shown
// comes from the documents: sanitized and cut.
func changedLines(e identity.ElementChange) []string {
	if e.Op != "changed" {
		return nil
	}
	val := func(s string) string { return sanitize.Truncate(sanitize.Line(s), maxMetaValue) }
	var out []string
	for _, c := range e.Cells {
		if len(out) == maxCellChanges {
			out = append(out, fmt.Sprintf("… and %d more cells", len(e.Cells)-maxCellChanges))
			break
		}
		switch c.Op {
		case "added":
			out = append(out, fmt.Sprintf("+ row %d: %s", c.Row+1, val(c.New)))
		case "removed":
			out = append(out, fmt.Sprintf("- row %d: %s", c.Row+1, val(c.Old)))
		default:
			col := strconv.Itoa(c.Col + 1)
			if c.Header != "" {
				col += " (" + val(c.Header) + ")"
			}
			out = append(out, fmt.Sprintf("~ cell row %d, column %s: %s → %s", c.Row+1, col, strconv.Quote(val(c.Old)), strconv.Quote(val(c.New))))
		}
	}
	var other []string
	for _, f := range e.Fields {
		switch {
		case f == "metadata" && len(e.MetadataChanged) > 0:
			out = append(out, "metadata changed: "+fieldNames(e.MetadataChanged))
			out = append(out, metaLines(e.Metadata)...)
		case (f == "text" || f == "text_as_html") && len(e.Cells) > 0:
			// the cells above say it
		default:
			other = append(other, f)
		}
	}
	if len(other) > 0 {
		out = append(out, strings.Join(other, ", ")+" changed")
	}
	return out
}

// cellSummary counts a changed table's changes: "1 cell changed, 1 row
// added".
func cellSummary(cells []identity.CellChange) string {
	n := map[string]int{}
	for _, c := range cells {
		n[c.Op]++
	}
	var parts []string
	if n["changed"] > 0 {
		parts = append(parts, plural.Count(n["changed"], "cell", "cells")+" changed")
	}
	if n["added"] > 0 {
		parts = append(parts, plural.Count(n["added"], "row", "rows")+" added")
	}
	if n["removed"] > 0 {
		parts = append(parts, plural.Count(n["removed"], "row", "rows")+" removed")
	}
	return strings.Join(parts, ", ")
}

// fieldNames lists metadata keys for a "metadata changed:" line,
// sanitized, at most maxMetaFields of them.
func fieldNames(keys []string) string {
	var names []string
	for i, k := range keys {
		if i == maxMetaFields {
			names = append(names, fmt.Sprintf("… and %d more", len(keys)-i))
			break
		}
		names = append(names, sanitize.Truncate(sanitize.Line(k), maxMetaValue))
	}
	return strings.Join(names, ", ")
}

// mdEscape keeps document text from becoming Markdown structure.
func mdEscape(s string) string {
	r := strings.NewReplacer("\\", "\\\\", "`", "\\`", "*", "\\*", "_", "\\_", "[", "\\[", "]", "\\]", "<", "&lt;", ">", "&gt;", "#", "\\#", "|", "\\|")
	return r.Replace(s)
}

// maxMetaFields bounds the doc_metadata fields diff names; maxMetaValue
// the cells of each value shown.
const maxMetaFields, maxMetaValue = 20, 40

// metaChanges names what changed between two canonical doc_metadata
// objects, key by key in order: "+ key: value" added, "- key: value"
// removed, "~ key: old → new" changed. Keys and values are untrusted:
// sanitized, each value cut. Metadata that is not an object on either
// side names nothing (the "changed" line says it all).
func metaChanges(old, new []byte) []string {
	return metaLines(identity.MetaChanges(old, new))
}

// metaLines is one line per changed metadata key (at most
// maxMetaFields): "+ key: value", "- key: value" or "~ key: old → new".
func metaLines(changes []identity.MetaChange) []string {
	val := func(v json.RawMessage) string {
		return sanitize.Truncate(sanitize.Line(string(v)), maxMetaValue)
	}
	var out []string
	more := 0
	for _, c := range changes {
		name := sanitize.Truncate(sanitize.Line(c.Key), maxMetaValue)
		line := "~ " + name + ": " + val(c.Old) + " → " + val(c.New)
		switch c.Op {
		case '+':
			line = "+ " + name + ": " + val(c.New)
		case '-':
			line = "- " + name + ": " + val(c.Old)
		}
		if len(out) == maxMetaFields {
			more++
			continue
		}
		out = append(out, line)
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("… and %d more", more))
	}
	return out
}
