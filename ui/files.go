package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/safewrite"
	"github.com/dpe-tui/dpe-tui/render"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// Copy (OSC 52) and writing files: export, save image, save content.

// clipKind says how a copied string is made safe.
type clipKind int

const (
	// clipText is text as displayed: escapes and controls removed, bidi
	// controls made visible, tabs as the spaces the screen shows.
	clipText clipKind = iota
	// clipJSON is JSON with every control and bidi code point written as a
	// \uXXXX escape, so the data stays exact and pastes inert.
	clipJSON
	// clipURI is a URI on one line: the real URI (it must keep working),
	// with anything that is not printable removed.
	clipURI
)

// copyText is the one way anything reaches the clipboard (OSC 52): what
// is pasted is what was shown, never raw peer text that could end a
// bracketed paste or hide a command in an escape payload.
func copyText(e *env, what string, kind clipKind, s string) tea.Cmd {
	s = clipboardText(kind, s)
	if s == "" {
		return e.info("nothing to copy: no " + what)
	}
	// The terminal is asked (OSC 52) and never answers whether it did:
	// say what was sent, not that it arrived (tmux's default drops it).
	return tea.Batch(tea.SetClipboard(s), e.setStatus(statusOK, fmt.Sprintf("sent %s (%s) to the terminal's clipboard (OSC 52)", what, humanBytes(int64(len(s))))))
}

func clipboardText(kind clipKind, s string) string {
	switch kind {
	case clipJSON:
		return escapedJSON(s)
	case clipURI:
		return strings.TrimSpace(sanitize.Line(s))
	}
	return displayText(s)
}

// displayText is an untrusted multi-line text as the screen shows it.
func displayText(s string) string {
	return strings.ReplaceAll(sanitize.Text(s), "\t", "    ")
}

// escapedJSON compacts a JSON text (so every remaining control character
// is inside a string) and writes each control, bidi or invalid byte as a
// \u escape. Invalid JSON is copied as displayed text instead.
func escapedJSON(s string) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		return displayText(s)
	}
	b := buf.Bytes()
	var out strings.Builder
	out.Grow(len(b))
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out.WriteString(`\ufffd`)
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, isBidiOrInvisible(r):
			fmt.Fprintf(&out, `\u%04x`, r)
		default:
			out.Write(b[i : i+n])
		}
		i += n
	}
	return out.String()
}

// isBidiOrInvisible is the bidi controls sanitize shows visibly, plus the
// zero-width and line/paragraph separators that hide or break text.
func isBidiOrInvisible(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	case r >= 0x200B && r <= 0x200D, r == 0x2028, r == 0x2029, r == 0xFEFF:
		return true
	}
	return false
}

// copyChoice is the key after y: u resource URI, a access URI, t element
// text, j element JSON.
func (m *model) copyChoice(c copyMenuMsg, msg tea.KeyPressMsg) tea.Cmd {
	e := m.e
	k := e.keys
	switch {
	case matches(msg, k.CopyRes):
		return copyText(e, "resource URI", clipURI, c.resURI)
	case matches(msg, k.CopyAccess):
		return copyText(e, "access URI", clipURI, c.access)
	case matches(msg, k.CopyText), matches(msg, k.CopyJSON):
		if c.json == "" {
			return e.info("no element selected")
		}
		if matches(msg, k.CopyText) {
			return copyText(e, "element text", clipText, c.text)
		}
		return copyText(e, "element JSON", clipJSON, c.json)
	case matches(msg, k.CopyPath) && c.path != "":
		return copyText(e, "JSON path", clipText, c.path)
	case matches(msg, k.Cancel):
		return nil
	}
	return e.info("copy: unknown choice " + sanitizeLine(msg.String()) + " (" + copyChoices(k, c) + ")")
}

// copyChoices is what the y menu offers here, named by its bindings.
func copyChoices(k keyMap, c copyMenuMsg) string {
	bs := []key.Binding{k.CopyRes, k.CopyAccess, k.CopyText, k.CopyJSON}
	if c.path != "" {
		bs = append(bs, k.CopyPath)
	}
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		parts = append(parts, b.Help().Key+" "+b.Help().Desc)
	}
	return strings.Join(parts, " · ")
}

// resolvePath makes a typed name absolute under SaveDir.
func resolvePath(opt Options, name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errors.New("no file name")
	}
	if name == "~" || strings.HasPrefix(name, "~/") {
		// As a shell reads it: the home directory.
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		name = filepath.Join(home, name[1:])
	}
	if !filepath.IsAbs(name) {
		dir := opt.SaveDir
		if dir == "" {
			wd, err := os.Getwd()
			if err != nil {
				return "", err
			}
			dir = wd
		}
		name = filepath.Join(dir, name)
	}
	return filepath.Abs(name)
}

// writeFile writes what data returns to a new file, off the loop. data
// runs in the command: it must only read values Update handed it.
func writeFile(e *env, what, name string, data func() ([]byte, error)) tea.Cmd {
	path, err := resolvePath(e.opt, name)
	if err != nil {
		return e.setErr(what, err)
	}
	_, cmd := e.start("writing "+sanitizeLine(filepath.Base(path)), 0, func(ctx context.Context, id int) tea.Msg {
		b, err := data()
		if err != nil {
			return errMsg{id: id, what: what, err: err}
		}
		// 0600 like `get -o`: what is saved came from a peer and may be private.
		if err := safewrite.New(path, b, 0o600); err != nil {
			return errMsg{id: id, what: what, err: err}
		}
		return savedMsg{id: id, path: path, what: what}
	})
	return cmd
}

// export writes the current page, or the whole document (every page
// loaded first: exportDoc), as Markdown, or as JSON when the name ends in
// .json.
func (d *documentScreen) export(name string, pageOnly bool) tea.Cmd {
	asJSON := strings.EqualFold(filepath.Ext(name), ".json")
	if !pageOnly {
		return d.exportDoc(name, asJSON)
	}
	p := d.curPage()
	if p == nil {
		return d.e.info("the page is not loaded yet")
	}
	if asJSON {
		raw := pageJSON(d, d.page, d.doc().Pages[d.page])
		return writeFile(d.e, "page JSON", name, func() ([]byte, error) { return indentJSON(raw), nil })
	}
	return writeFile(d.e, "page Markdown", name, func() ([]byte, error) { return []byte(render.PageMarkdown(p)), nil })
}

// writeExport writes the whole document from the pages the UI holds: a
// snapshot built here, in Update, that the command only reads.
func (d *documentScreen) writeExport(name string, asJSON bool, failed []int) tea.Cmd {
	e := d.e
	var cmd tea.Cmd
	if len(failed) > 0 {
		sort.Ints(failed)
		cmd = e.setStatus(statusErr, fmt.Sprintf("%s could not be loaded (first: page %d); they are marked in the export", counted(len(failed), "page", "pages"), failed[0]+1))
	}
	if asJSON {
		var body []byte
		if len(d.op.Body) > 0 && !d.hasManifestPages() {
			body = d.op.Body
		} else {
			body = documentJSON(d)
		}
		return tea.Batch(cmd, writeFile(e, "document JSON", name, func() ([]byte, error) { return body, nil }))
	}
	src := d.doc()
	snap := &dpe.Document{DocRef: src.DocRef, URI: src.URI, FileURI: src.FileURI, FileType: src.FileType, Title: src.Title,
		Summary: src.Summary, PageCount: src.PageCount, Keywords: src.Keywords, LastModified: src.LastModified}
	for i, p := range src.Pages {
		if q := d.pages[i].p; q != nil {
			snap.Pages = append(snap.Pages, q)
		} else {
			snap.Pages = append(snap.Pages, &dpe.Page{Index: p.Index, Title: p.Title, ElementCount: -1})
		}
	}
	return tea.Batch(cmd, writeFile(e, "document Markdown", name, func() ([]byte, error) { return []byte(render.Markdown(snap)), nil }))
}

func indentJSON(raw []byte) []byte {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return raw
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return raw
	}
	return append(b, '\n')
}

// exportName proposes a file name from a document title.
func exportName(title, ext string) string {
	var b strings.Builder
	for _, r := range title {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		case r > 127:
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	s := strings.Trim(b.String(), "-.")
	if s == "" {
		s = "document"
	}
	if len(s) > 80 {
		s = s[:80]
	}
	return safeFileName(s) + ext
}

// safeFileName keeps a proposed name inside the save directory: only the
// base name survives, with control characters dropped.
func safeFileName(s string) string {
	s = sanitizeLine(s)
	s = filepath.Base(strings.ReplaceAll(s, "\\", "/"))
	if s == "." || s == ".." || s == "/" {
		return "download"
	}
	return s
}

// imageName is the URI the saved name is taken from: the image's own URL
// when it has one; else its alternative text or the caption right after
// it; else the document's title, the page and which image of the page it
// is. (An element id is often a hash, which names nothing.)
func imageName(d *documentScreen, el *dpe.Element) string {
	for _, k := range []string{"image_url", "image_path", "url", "uri"} {
		if s := el.MetaString(k); s != "" {
			return s
		}
	}
	name := strings.TrimSpace(firstLine(el.Text))
	p := d.curPage()
	if name == "" && p != nil && d.sel+1 < len(p.Elements) && dpe.NormalizeCategory(p.Elements[d.sel+1].Category) == dpe.CategoryFigureCaption {
		name = strings.TrimSpace(firstLine(p.Elements[d.sel+1].Text))
	}
	if name == "" {
		k := 0
		for i := 0; p != nil && i <= d.sel && i < len(p.Elements); i++ {
			if dpe.NormalizeCategory(p.Elements[i].Category) == dpe.CategoryImage {
				k++
			}
		}
		name = fmt.Sprintf("%s-page-%d-image-%d", d.title(), d.page+1, max(k, 1))
	}
	if r := []rune(name); len(r) > maxImageName {
		name = strings.TrimSpace(string(r[:maxImageName]))
	}
	// A name, not a URI: escaped so that SuggestFileName's parse gives it
	// back whole ('?' and '#' are no query or fragment), no '/' in it.
	name = strings.NewReplacer("/", "-", "\\", "-").Replace(name)
	return "./" + url.PathEscape(strings.Join(strings.Fields(name), "-"))
}

// maxImageName bounds a save name made from an image's text.
const maxImageName = 60

// saveImage writes the selected image's bytes (render.ImageData decodes
// and bounds them).
func (d *documentScreen) saveImage(name string) tea.Cmd {
	el := d.selected()
	if el == nil {
		return nil
	}
	data, _, err := render.ImageData(el, d.e.renderer.Limits().MaxImageBytes)
	if err != nil {
		return d.e.setErr("save image", err)
	}
	if len(data) == 0 {
		return d.e.info("this image has no image_base64 data")
	}
	return writeFile(d.e, "image", name, func() ([]byte, error) { return data, nil })
}
