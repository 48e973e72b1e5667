package render

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// hostileStrings is an escape-injection corpus (SECURITY.md): every string the
// renderer might print gets these.
func hostileStrings() []string {
	return []string{
		"clear\x1b[2Jscreen",
		"title\x1b]0;pwned\x07",
		"title-st\x1b]0;pwned\x1b\\",
		"clip\x1b]52;c;cm0gLXJmIH4=\x07",
		"link\x1b]8;;http://evil\x1b\\x\x1b]8;;\x1b\\",
		"dcs\x1bPq#0;2;0;0;0\x1b\\",
		"c1\u009b2J c1raw\x9b2J osc8bit\u009d0;t\u009c",
		"bidi\u202Egnp.exe\u202C",
		"bad\xff\xfeutf8",
		"nul\x00del\x7fbel\x07bs\x08cr\r",
	}
}

func hostile() string { return strings.Join(hostileStrings(), " | ") }

func hostileFixtures(t testing.TB) []fixture {
	h := hostile()
	html := "<table><tr><th>" + h + "</th><th colspan=3>" + h + "</th></tr><tr><td rowspan=2>" + h + "</td><td>" + h + "</td></tr></table>"
	all := map[string]any{
		"category_depth": 1, "language": h, "languages": []string{h}, "text_as_html": html,
		"image_mime_type": h, "image_path": h, "caption": h, "checked": h,
		"key_value_pairs": []any{map[string]any{"key": h, "value": map[string]any{"text": h}}},
		"url":             h, "mime_type": h, "duration": h,
	}
	var fs []fixture
	for _, cat := range []string{"Title", "NarrativeText", "ListItem", "CodeSnippet", "Table", "TableChunk", "Image",
		"Formula", "CheckBox", "Header", "Footer", "PageNumber", "PageBreak", "FigureCaption", "FormKeysValues",
		"Address", "EmailAddress", "CompositeElement", "Text", "link", "audio", "widget", h} {
		fs = append(fs, fixture{name: "hostile_" + strings.ReplaceAll(cat[:min(len(cat), 12)], "\x1b", "E"), el: el(t, cat, h+"\n**md** `x`\n"+h, all)})
	}
	// Markdown text table with hostile cells, and an image whose data is
	// not an image but whose metadata is hostile.
	fs = append(fs,
		fixture{name: "hostile_md_table", el: el(t, "Table", "| "+h+" | b |\n|---|---|\n| "+h+" | 2 |", nil)},
		fixture{name: "hostile_csv_table", el: el(t, "Table", "\""+h+"\",b\n1,2", nil)},
		fixture{name: "hostile_image_data", el: el(t, "Image", h, map[string]any{"image_base64": base64.StdEncoding.EncodeToString([]byte(h))})},
	)
	return fs
}

// sgrPattern matches the renderer's own styling: Select Graphic Rendition
// only.
const sgrPattern = `\x1b\[[0-9;:]*m`

func assertOnlySGR(t *testing.T, where, out string) {
	t.Helper()
	rest := regexp.MustCompile(sgrPattern).ReplaceAllString(out, "")
	if i := strings.IndexByte(rest, 0x1b); i >= 0 {
		t.Fatalf("%s: non-SGR escape survives: %q", where, rest[max(0, i-20):min(len(rest), i+40)])
	}
	if !utf8.ValidString(rest) {
		t.Fatalf("%s: invalid UTF-8 survives in %q", where, rest)
	}
	for _, r := range rest {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			t.Fatalf("%s: control %U survives in %q", where, r, rest)
		}
	}
}

// TestRender_HostileStringsInEveryFieldLeaveOnlyThemeSGR renders the
// injection corpus through every renderer, the page view, the exports and
// the JSON view, in every theme.
func TestRender_HostileStringsInEveryFieldLeaveOnlyThemeSGR(t *testing.T) {
	fs := hostileFixtures(t)
	page := &dpe.Page{Index: 1, Title: hostile(), Decoded: true}
	for _, f := range fs {
		page.Elements = append(page.Elements, f.el)
	}
	doc := &dpe.Document{Title: hostile(), Pages: []*dpe.Page{page, {Index: 2, URI: hostile()}}}
	for _, theme := range []string{"notty", "dark", "light"} {
		r := New(NewTheme(theme))
		for _, f := range fs {
			for _, w := range []int{10, 80} {
				assertOnlySGR(t, theme+"/"+f.name, r.Table(f.el, w, TableView{XOffset: 1}))
				_, body, _ := r.TableWindow(f.el, w, TableView{}, 0, 5)
				assertOnlySGR(t, theme+"/"+f.name+"/window", strings.Join(body, "\n"))
			}
		}
		lines, _ := Flatten(r.Page(page, 60), 1)
		assertOnlySGR(t, theme+"/page", strings.Join(lines, "\n"))
		lines, _ = Flatten(r.Page(doc.Pages[1], 60), 1)
		assertOnlySGR(t, theme+"/unloaded page", strings.Join(lines, "\n"))
		for _, f := range fs {
			assertOnlySGR(t, theme+"/json/"+f.name, strings.Join(JSON(f.el.Raw, 60, r.Theme(), nil), "\n"))
		}
	}
	for name, out := range map[string]string{
		"Markdown": Markdown(doc), "PlainText": plainText(doc),
		"PageMarkdown": PageMarkdown(page), "PagePlainText": pagePlainText(page),
	} {
		if strings.ContainsRune(out, 0x1b) {
			t.Errorf("%s export contains ESC", name)
		}
		assertOnlySGR(t, name, out)
	}
}
