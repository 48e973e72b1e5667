package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/sanitize"
)

// JSONLine is one line of the raw JSON view.
type JSONLine struct {
	// Path is the JSON path of the value the line shows or opens ("$",
	// "$.pages[0]", `$["odd key"]`); keys that are not identifiers are
	// quoted with every non-printable rune escaped, so Path is safe to print.
	Path     string
	Text     string // styled, at most width cells
	Depth    int
	Foldable bool // opens a non-empty object or array (or is one, folded)
	Folded   bool
}

// JSON renders raw JSON as pretty-printed, syntax-coloured lines for the raw
// view (rendered ⇄ raw JSON). Objects and arrays whose path is in
// folded show as one line, `{…} 12 keys`. Default limits apply.
func JSON(raw []byte, width int, theme Theme, folded map[string]bool) []string {
	lines := JSONView(raw, width, theme, folded, Limits{})
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text
	}
	return out
}

// JSONView is JSON with the path and fold state of every line, and explicit
// limits: strings are clipped to MaxChars, nesting beyond MaxJSONDepth is
// shown folded, and output stops at MaxJSONLines with a marker. The input
// is streamed, so a huge document costs only the lines shown.
func JSONView(raw []byte, width int, theme Theme, folded map[string]bool, lim Limits) []JSONLine {
	j := &jsonView{
		dec: json.NewDecoder(bytes.NewReader(raw)), th: theme, lim: lim.withDefaults(),
		folded: folded, width: max(width, 1),
	}
	j.dec.UseNumber()
	for {
		err := j.value("$", "", 0)
		if err == io.EOF || errors.Is(err, errJSONStop) {
			break
		}
		if err != nil {
			j.failed(raw, err)
			break
		}
	}
	for i := range j.out {
		if ansi.StringWidth(j.out[i].Text) > j.width {
			t := ansi.Truncate(j.out[i].Text, j.width, "…")
			if strings.Contains(t, "\x1b") {
				t += "\x1b[m"
			}
			j.out[i].Text = t
		}
	}
	return j.out
}

var errJSONStop = errors.New("json view line limit")

type jsonView struct {
	dec    *json.Decoder
	th     Theme
	lim    Limits
	folded map[string]bool
	width  int
	out    []JSONLine
}

func (j *jsonView) emit(l JSONLine) error {
	if len(j.out) >= j.lim.MaxJSONLines {
		j.out = append(j.out, JSONLine{Path: l.Path, Depth: l.Depth,
			Text: j.th.Warning.Render(fmt.Sprintf("… output cut at %d lines", j.lim.MaxJSONLines))})
		return errJSONStop
	}
	j.out = append(j.out, l)
	return nil
}

// comma appends "," to the last line when the enclosing container has more.
func (j *jsonView) comma() {
	if j.dec.More() && len(j.out) > 0 {
		j.out[len(j.out)-1].Text += j.th.JSONPunct.Render(",")
	}
}

func (j *jsonView) failed(raw []byte, err error) {
	msg := fmt.Sprintf("⚠ invalid JSON at byte %d: %s", j.dec.InputOffset(), sanitize.Line(err.Error()))
	j.out = append(j.out, JSONLine{Path: "$", Text: j.th.Warning.Render(msg)})
	if len(j.out) > 1 {
		return
	}
	// Nothing parsed: show the text itself so the user can see what came.
	s, more := clip(string(raw), j.lim.MaxChars)
	for _, l := range strings.Split(expandTabs(sanitize.Text(s)), "\n") {
		if len(j.out) >= j.lim.MaxJSONLines {
			break
		}
		j.out = append(j.out, JSONLine{Path: "$", Text: l})
	}
	if more > 0 {
		j.out = append(j.out, JSONLine{Path: "$", Text: j.th.Dim.Render(moreMarker(more))})
	}
}

func (j *jsonView) indent(d int) string { return strings.Repeat("  ", min(d, 64)) }

// value reads one value and emits its lines. prefix is the styled `"key": `.
func (j *jsonView) value(path, prefix string, depth int) error {
	tok, err := j.token(depth > 0)
	if err != nil {
		return err
	}
	ind := j.indent(depth)
	p := j.th.JSONPunct
	switch t := tok.(type) {
	case json.Delim:
		open, close, unit := "{", "}", "keys"
		if t == '[' {
			open, close, unit = "[", "]", "items"
		}
		if t == '}' || t == ']' {
			return fmt.Errorf("unexpected %q", string(t))
		}
		if !j.dec.More() {
			if _, err := j.token(true); err != nil {
				return err
			}
			return j.emit(JSONLine{Path: path, Depth: depth, Text: ind + prefix + p.Render(open+close)})
		}
		if j.folded[path] || depth >= j.lim.MaxJSONDepth {
			n, err := j.skipContainer(t == '{')
			if err != nil {
				return err
			}
			label := fmt.Sprintf("%s %d %s", open+"…"+close, n, unit)
			if n == 1 {
				label = strings.TrimSuffix(label, "s")
			}
			if depth >= j.lim.MaxJSONDepth && !j.folded[path] {
				label += " (depth limit)"
			}
			return j.emit(JSONLine{Path: path, Depth: depth, Foldable: true, Folded: true,
				Text: ind + prefix + j.th.JSONFold.Render(label)})
		}
		if err := j.emit(JSONLine{Path: path, Depth: depth, Foldable: true, Text: ind + prefix + p.Render(open)}); err != nil {
			return err
		}
		for i := 0; j.dec.More(); i++ {
			childPath := path + "[" + strconv.Itoa(i) + "]"
			childPrefix := ""
			if t == '{' {
				kt, err := j.token(true)
				if err != nil {
					return err
				}
				key, _ := kt.(string)
				childPath = path + pathKey(key)
				childPrefix = j.th.JSONKey.Render(j.quote(key)) + p.Render(": ")
			}
			if err := j.value(childPath, childPrefix, depth+1); err != nil {
				return err
			}
			j.comma()
		}
		if _, err := j.token(true); err != nil {
			return err
		}
		return j.emit(JSONLine{Path: path, Depth: depth, Text: ind + p.Render(close)})
	case string:
		return j.emit(JSONLine{Path: path, Depth: depth, Text: ind + prefix + j.th.JSONString.Render(j.quote(t))})
	case json.Number:
		return j.emit(JSONLine{Path: path, Depth: depth, Text: ind + prefix + j.th.JSONNumber.Render(sanitize.Line(t.String()))})
	case bool:
		return j.emit(JSONLine{Path: path, Depth: depth, Text: ind + prefix + j.th.JSONBool.Render(strconv.FormatBool(t))})
	case nil:
		return j.emit(JSONLine{Path: path, Depth: depth, Text: ind + prefix + j.th.JSONNull.Render("null")})
	}
	return fmt.Errorf("unexpected token %T", tok)
}

// token reads the next token; inside a container the input cannot end.
func (j *jsonView) token(inside bool) (json.Token, error) {
	tok, err := j.dec.Token()
	if err == io.EOF && inside {
		err = io.ErrUnexpectedEOF
	}
	return tok, err
}

// skipContainer consumes the rest of an object or array whose opening
// delimiter was just read, returning how many members it had.
func (j *jsonView) skipContainer(object bool) (int, error) {
	n := 0
	for j.dec.More() {
		if object {
			if _, err := j.token(true); err != nil {
				return n, err
			}
		}
		if err := j.skipValue(); err != nil {
			return n, err
		}
		n++
	}
	_, err := j.token(true)
	return n, err
}

func (j *jsonView) skipValue() error {
	tok, err := j.token(true)
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); ok {
		if d == '}' || d == ']' {
			return fmt.Errorf("unexpected %q", string(d))
		}
		_, err := j.skipContainer(d == '{')
		return err
	}
	return nil
}

// quote writes s as a JSON string literal, clipped to MaxChars, with every
// control, C1 and bidi rune escaped: the raw view shows exactly what is in
// the document without letting it act on the terminal.
func (j *jsonView) quote(s string) string {
	s, more := clip(s, j.lim.MaxChars)
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			sb.WriteString(`\"`)
		case r == '\\':
			sb.WriteString(`\\`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\t':
			sb.WriteString(`\t`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r < 0x20 || (r >= 0x7F && r <= 0x9F) || isBidiRune(r) || r == utf8.RuneError:
			fmt.Fprintf(&sb, `\u%04x`, r)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	if more > 0 {
		fmt.Fprintf(&sb, " …+%d chars", more)
	}
	return sanitize.Line(sb.String())
}

func isBidiRune(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C
}

// pathKey is the path step for an object key.
func pathKey(k string) string {
	ident := k != ""
	for i, c := range k {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			ident = false
			break
		}
	}
	if ident {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}
