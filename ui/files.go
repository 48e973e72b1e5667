package ui

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/dpe"
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

// copy is the one way anything reaches the clipboard (OSC 52): what is
// pasted is what was shown, never raw peer text that could end a
// bracketed paste or hide a command in an escape payload.
func (m *model) copy(what string, kind clipKind, s string) tea.Cmd {
	s = clipboardText(kind, s)
	if s == "" {
		return m.setStatus(statusInfo, "nothing to copy: no "+what)
	}
	return tea.Batch(tea.SetClipboard(s), m.setStatus(statusOK, fmt.Sprintf("copied %s (%s) to the clipboard", what, humanBytes(int64(len(s))))))
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
func (m *model) copyChoice(k string) tea.Cmd {
	var resURI, access string
	if t := m.currentTrace(); t != nil {
		resURI = t.uri
	}
	if m.doc != nil && m.screen == screenDocument {
		access = m.doc.op.Access.URI
		resURI = m.doc.uri
	} else if m.content != nil && m.screen == screenContent {
		access = m.content.op.Access.URI
		resURI = m.content.uri
	}
	switch k {
	case "u":
		return m.copy("resource URI", clipURI, resURI)
	case "a":
		return m.copy("access URI", clipURI, access)
	case "t", "j":
		var el *dpe.Element
		if m.doc != nil {
			el = m.doc.selected()
		}
		if el == nil {
			return m.setStatus(statusInfo, "no element selected")
		}
		if k == "t" {
			return m.copy("element text", clipText, el.Text)
		}
		return m.copy("element JSON", clipJSON, string(el.Raw))
	case "esc":
		return nil
	}
	return m.setStatus(statusInfo, "copy: unknown choice "+sanitizeLine(k)+" (u resource URI · a access URI · t text · j JSON)")
}

// resolvePath makes a typed name absolute under SaveDir.
func (m *model) resolvePath(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errors.New("no file name")
	}
	if !filepath.IsAbs(name) {
		dir := m.opt.SaveDir
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

// writeNew writes data to a new file; it never overwrites, so a name typed
// by mistake cannot destroy a file.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("%s already exists; choose another name", path)
		}
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (m *model) writeFileCmd(what, name string, data func() ([]byte, error)) tea.Cmd {
	path, err := m.resolvePath(name)
	if err != nil {
		return m.setErr(what, err)
	}
	var mu interface {
		Lock()
		Unlock()
	}
	if m.doc != nil {
		mu = m.doc.mu
	}
	return m.start("writing "+sanitizeLine(filepath.Base(path)), 0, func(ctx context.Context, id int) tea.Msg {
		if mu != nil {
			mu.Lock()
			defer mu.Unlock()
		}
		b, err := data()
		if err != nil {
			return errMsg{opID: id, what: what, err: err}
		}
		if err := writeNew(path, b); err != nil {
			return errMsg{opID: id, what: what, err: err}
		}
		return savedMsg{opID: id, path: path, what: what}
	})
}

// export writes the document or the current page as Markdown, or as JSON
// when the name ends in .json.
func (m *model) export(name string, pageOnly bool) tea.Cmd {
	d := m.doc
	if d == nil {
		return nil
	}
	asJSON := strings.EqualFold(filepath.Ext(name), ".json")
	if pageOnly {
		p := d.curPage()
		if p == nil {
			return m.setStatus(statusInfo, "the page is not loaded yet")
		}
		if asJSON {
			return m.writeFileCmd("page JSON", name, func() ([]byte, error) { return indentJSON(p.Raw), nil })
		}
		return m.writeFileCmd("page Markdown", name, func() ([]byte, error) { return []byte(render.PageMarkdown(p)), nil })
	}
	if asJSON {
		if body := d.op.Body; len(body) > 0 {
			return m.writeFileCmd("document JSON", name, func() ([]byte, error) { return body, nil })
		}
		return m.writeFileCmd("document JSON", name, func() ([]byte, error) { return documentJSON(d), nil })
	}
	doc := d.doc()
	return m.writeFileCmd("document Markdown", name, func() ([]byte, error) { return []byte(render.Markdown(doc)), nil })
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

// imageData decodes an Image element's image_base64 (proposal §3.4).
func imageData(el *dpe.Element) ([]byte, string, error) {
	b64 := metaString(el, "image_base64")
	mime := metaString(el, "image_mime_type")
	if b64 == "" {
		return nil, mime, errors.New("this image has no image_base64 data")
	}
	if i := strings.Index(b64, ","); strings.HasPrefix(b64, "data:") && i > 0 {
		if mime == "" {
			mime = strings.TrimSuffix(strings.TrimPrefix(b64[:i], "data:"), ";base64")
		}
		b64 = b64[i+1:]
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		data, err = base64.RawStdEncoding.DecodeString(strings.TrimSpace(b64))
	}
	if err != nil {
		return nil, mime, fmt.Errorf("image_base64 is not valid base64: %w", err)
	}
	return data, mime, nil
}

// imageName is the URI the saved name is taken from: the image's own URL
// when it has one, else the document URI plus the element id.
func imageName(d *documentView, el *dpe.Element) string {
	for _, k := range []string{"image_url", "image_path", "url", "uri"} {
		if s := metaString(el, k); s != "" {
			return s
		}
	}
	base := d.uri
	id := el.ID
	if id == "" {
		id = fmt.Sprintf("p%d-e%d", d.page+1, d.sel+1)
	}
	return strings.TrimRight(base, "/") + "/" + id
}

func (m *model) saveImage(name string) tea.Cmd {
	if m.doc == nil {
		return nil
	}
	el := m.doc.selected()
	if el == nil {
		return nil
	}
	data, _, err := imageData(el)
	if err != nil {
		return m.setErr("save image", err)
	}
	return m.writeFileCmd("image", name, func() ([]byte, error) { return data, nil })
}

func (m *model) saveContent(name string) tea.Cmd {
	if m.content == nil {
		return nil
	}
	body := m.content.op.Body
	return m.writeFileCmd("content", name, func() ([]byte, error) { return body, nil })
}
