package ui

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
)

// payloads is the hostile corpus: each one, printed raw, makes a terminal
// do something or hides text.
var payloads = []string{
	"\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\", // OSC 8 hyperlink
	"\x1b_Gf=100,a=T;iVBORw0KGgo=\x1b\\",                    // APC: kitty graphics
	"\x1bP1$qm\x1b\\",                                       // DCS
	"\x1bXsos payload\x1b\\",                                // SOS
	"\x1b^pm payload\x1b\\",                                 // PM
	"\u009b2J\u009d0;title\u009c",                           // C1 as UTF-8
	"\x9b2J\x9d0;title\x07",                                 // C1 as raw bytes
	"\x1b[8mconcealed\x1b[28m",                              // SGR 8 conceal
	"\u202eexe.txt",                                         // RLO
	strings.Repeat("a\u200d", 2000),                         // ZWJ flood
	"\x1b[201~rm -rf ~\n",                                   // ends bracketed paste
}

var hostile = strings.Join(payloads, "|")

// leakedToken is the query value of the test's secret URL shown unredacted
// (the redactor writes token=xxxxx).
var leakedToken = regexp.MustCompile(`token=x([^x]|$)`)

// checkOnlyOwnSGR fails unless out holds no escape but SGR (CSI params m),
// no C1 control, no raw bidi control and valid UTF-8.
func checkOnlyOwnSGR(t *testing.T, where, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s: output is not valid UTF-8 (a raw C1 byte got through)", where)
	}
	for i := 0; i < len(out); {
		if out[i] == 0x1b {
			j := i + 1
			if j >= len(out) || out[j] != '[' {
				t.Fatalf("%s: non-CSI escape %q reached the terminal", where, out[i:min(len(out), i+12)])
			}
			j++
			for j < len(out) && (out[j] >= '0' && out[j] <= '9' || out[j] == ';' || out[j] == ':') {
				j++
			}
			if j >= len(out) || out[j] != 'm' {
				t.Fatalf("%s: CSI that is not SGR %q reached the terminal", where, out[i:min(len(out), j+1)])
			}
			if p := out[i+2 : j]; p == "8" || strings.HasPrefix(p, "8;") || strings.Contains(p, ";8;") || strings.HasSuffix(p, ";8") {
				// 38;…/48;… colour arguments may contain 8; a lone 8 parameter is conceal.
				if !strings.Contains(p, "38;") && !strings.Contains(p, "48;") {
					t.Fatalf("%s: SGR 8 (conceal) %q reached the terminal", where, out[i:j+1])
				}
			}
			i = j + 1
			continue
		}
		r, n := utf8.DecodeRuneInString(out[i:])
		switch {
		case r >= 0x80 && r <= 0x9f:
			t.Fatalf("%s: C1 control U+%04X reached the terminal", where, r)
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
			t.Fatalf("%s: raw bidi control U+%04X reached the terminal", where, r)
		case r < 0x20 && r != '\n':
			t.Fatalf("%s: C0 control %#x reached the terminal", where, r)
		}
		i += n
	}
	if strings.Contains(out, "alice:pw") || leakedToken.MatchString(out) {
		t.Fatalf("%s: credentials in a URL reached the screen", where)
	}
}

func hostileDoc(t *testing.T) *dpe.Opened {
	t.Helper()
	meta := map[string]any{hostile: hostile, "parent_id": hostile, "image_base64": tinyPNG(t), "image_mime_type": hostile,
		"link_urls": []string{"http://evil.example/" + hostile}, "text_as_html": "<table><tr><th>" + hostile + "</th></tr><tr><td>" + hostile + "</td></tr></table>"}
	els := []any{}
	for _, cat := range []string{"Title", "NarrativeText", "Table", "Image", "CodeSnippet", "ListItem", "Formula", hostile} {
		els = append(els, map[string]any{"element_id": hostile, "category": cat, "text": hostile, "ele_metadata": meta})
	}
	raw, err := json.Marshal(map[string]any{"doc_ref": hostile, "title": hostile, "page_count": 1, hostile: hostile,
		"pages": []any{map[string]any{"page_index": 0, "title": hostile, "elements": els}}})
	if err != nil {
		t.Fatal(err)
	}
	return decodedDoc(t, raw)
}

func TestInjection_EveryScreenAndOverlayShowsOnlyOwnSGR(t *testing.T) {
	f := newFakeAgent(t)
	f.computers[0].Name = hostile
	f.computers[0].A2CVersion = hostile
	f.configs[hostile] = &client.Config{Servers: []client.ServerConfig{{Name: hostile, Type: hostile,
		Parameters: json.RawMessage(`{"url":"http://alice:pw@host/?token=x","` + jsonEsc(hostile) + `":"` + jsonEsc(hostile) + `"}`)}}}
	r := res("dpe://h/"+hostile, hostile, hostile, map[string]any{hostile: hostile, "keywords": []string{hostile}, "file_type": hostile})
	r.Annotations = json.RawMessage(`{"` + jsonEsc(hostile) + `":"` + jsonEsc(hostile) + `"}`)
	f.pages[hostile] = map[string]*client.ResourcePage{"": {Resources: []client.Resource{r}}}
	m := newTestModel(t, f)
	listOffice(t, m)
	check := func(where string) {
		t.Helper()
		checkOnlyOwnSGR(t, where, m.view().Content)
	}
	check("office")
	pushServers(t, m, hostile)
	check("servers")
	pushResources(t, m, hostile, hostile)
	m.resS().showAll, m.resS().detail = true, true
	m.resS().refilter()
	check("resources + detail pane")
	press(t, m, "d")
	check("resources + large detail pane")

	o := m.e.ops.add("open", 0)
	run(t, m, m.update(openedFor(m, o.id, hostileDoc(t), "dpe://h/"+hostile)))
	check("document")
	for i := range 8 {
		press(t, m, "enter")
		check("inspector")
		press(t, m, "v")
		check("raw JSON")
		press(t, m, "esc", "x")
		check("trace")
		press(t, m, "esc", "c")
		check("conformance")
		press(t, m, "esc", "?")
		check("help")
		press(t, m, "?")
		if i < 7 {
			press(t, m, "j")
		}
	}
	run(t, m, m.e.setErr("get_dpe", errors.New(hostile+" http://alice:pw@host/?token=x")))
	check("status line")

	md := "[site](http://evil.example/x) and <http://evil.example/y>\n\n# " + hostile + "\n\n[" + hostile + "](http://evil.example/" + hostile + ")\n"
	o = m.e.ops.add("open", 0)
	run(t, m, m.update(openedFor(m, o.id, &dpe.Opened{Kind: dpe.KindMarkdown, MimeType: "text/markdown", Body: []byte(md)}, "dpe://h/md")))
	out := m.view().Content
	if !strings.Contains(out, "evil.example") {
		t.Fatalf("the Markdown view should show the link target as text:\n%s", ansi.Strip(out)[:min(len(out), 2000)])
	}
	check("content (Markdown with links)")
	o = m.e.ops.add("connect", 0)
	m.update(connectFailedMsg{id: o.id, err: errors.New("dial --url http://alice:pw@host/?token=x: " + hostile)})
	if m.errorS() == nil {
		t.Fatal("no error screen")
	}
	check("error screen")
}

func jsonEsc(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// The OSC 52 payload of y t on a hostile element is exactly the text the
// inspector displays; y j is escaped JSON that decodes to the same data.
func TestClipboard_CopiesWhatWasShown(t *testing.T) {
	text := "echo hi\x1b]52;c;ZXZpbA==\x07\x1b[201~\nrm -rf ~\t\u202eexe\x9b31m"
	raw, _ := json.Marshal(map[string]any{"doc_ref": "d", "page_count": 1, "pages": []any{map[string]any{"page_index": 0,
		"elements": []any{map[string]any{"category": "NarrativeText", "text": text}}}}})
	m := openImages(t, nil, decodedDoc(t, raw))
	press(t, m, "enter") // the inspector shows the text field
	shown := textShownInInspector(t, m)
	m.overlay = nil
	cmd := m.update(keyMsg("y"))
	run(t, m, cmd)
	got := clipboardOf(t, m.update(keyMsg("t")))
	if got != shown {
		t.Fatalf("y t copied %q, the screen shows %q", got, shown)
	}
	for _, bad := range []string{"\x1b", "\x9b", "\u009b", "\u202e", "\x07"} {
		if strings.Contains(got, bad) {
			t.Fatalf("y t copied %q", bad)
		}
	}
	press(t, m, "y")
	js := clipboardOf(t, m.update(keyMsg("j")))
	for _, r := range js {
		if r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0x202e {
			t.Fatalf("y j copied a raw control U+%04X: %q", r, js)
		}
	}
	var back map[string]any
	if err := json.Unmarshal([]byte(js), &back); err != nil {
		t.Fatalf("y j is not JSON: %v", err)
	}
	if back["text"] != strings.ReplaceAll(text, "\x9b", "\ufffd") {
		t.Fatalf("y j does not decode to the element's data: %q", back["text"])
	}
	// The terminal never says whether it took the text (tmux's default
	// drops OSC 52): the line says it was sent, not that it arrived.
	if st := m.statusText(); !strings.HasPrefix(st, "sent element JSON") || !strings.Contains(st, "to the terminal's clipboard (OSC 52)") {
		t.Fatalf("after y j the status says %q", st)
	}
}

// textShownInInspector joins the inspector's "text" rows as displayed.
func textShownInInspector(t *testing.T, m *model) string {
	t.Helper()
	lines := m.overlay.(*inspector).lines(m.e.width)
	var rows []string
	in := false
	for _, l := range lines {
		plain := ansi.Strip(l)
		switch {
		case strings.HasPrefix(plain, "  text "):
			in = true
		case in && !strings.HasPrefix(plain, "                    "):
			in = false
		}
		if in {
			rows = append(rows, plain[21:])
		}
	}
	if len(rows) == 0 {
		t.Fatal("no text field in the inspector")
	}
	return strings.Join(rows, "\n")
}

// clipboardOf runs cmd and returns the text of the OSC 52 it writes, as a
// terminal would decode it.
func clipboardOf(t *testing.T, cmd tea.Cmd) string {
	t.Helper()
	var find func(tea.Cmd) (string, bool)
	find = func(c tea.Cmd) (string, bool) {
		if c == nil {
			return "", false
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				if s, ok := find(c); ok {
					return s, true
				}
			}
		default:
			// tea's set-clipboard message is unexported: it is a string
			// the program writes as OSC 52 (ansi.SetSystemClipboard).
			v := reflect.ValueOf(msg)
			if fmt.Sprintf("%T", msg) != "tea.setClipboardMsg" || v.Kind() != reflect.String {
				return "", false
			}
			seq := ansi.SetSystemClipboard(v.String())
			payload, ok := strings.CutPrefix(seq, "\x1b]52;c;")
			if !ok {
				t.Fatalf("not an OSC 52 sequence: %q", seq)
			}
			payload = strings.TrimRight(payload, "\x07\x1b\\")
			b, err := base64.StdEncoding.DecodeString(payload)
			if err != nil {
				t.Fatal(err)
			}
			return string(b), true
		}
		return "", false
	}
	s, ok := find(cmd)
	if !ok {
		t.Fatal("nothing was copied")
	}
	return s
}

// Keys of ele_metadata reach the inspector as labels. The element here has
// short values, so every key is on screen within a few pages; the check
// walks every page of the inspector, so a key printed raw anywhere in it
// fails the test.
func TestInjection_HostileMetadataKeysInTheInspector(t *testing.T) {
	meta := map[string]any{}
	for i, p := range payloads {
		meta[fmt.Sprintf("%s%d", p, i)] = i
	}
	raw, err := json.Marshal(map[string]any{"doc_ref": "d", "page_count": 1, "pages": []any{map[string]any{"page_index": 0,
		"elements": []any{map[string]any{"element_id": "e", "category": "NarrativeText", "text": "short", "ele_metadata": meta}}}}})
	if err != nil {
		t.Fatal(err)
	}
	op := decodedDoc(t, raw)
	if n := len(op.Doc.Pages[0].Elements[0].Metadata); n != len(payloads) {
		t.Fatalf("the decoder kept %d of %d hostile keys; the test needs them raw", n, len(payloads))
	}
	m := openImages(t, nil, op)
	press(t, m, "enter")
	for range 40 {
		checkOnlyOwnSGR(t, "inspector", m.view().Content)
		press(t, m, "pgdown")
	}
	if !strings.Contains(frame(m), "Raw JSON") {
		t.Fatalf("paging did not reach the end of the inspector:\n%s", frame(m))
	}
}
