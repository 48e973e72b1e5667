package convert

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// The PDF ground truth: scripts/make-fixtures-pdf writes each document of
// testdata/pdf as flat ODF from text we wrote and LibreOffice prints it
// to PDF. The source says what the PDF holds, so the conversion is scored
// against it, not against another converter.

// pdfTruth is what a source document holds, in document order.
type pdfTruth struct {
	words    []string
	tables   []truthTable
	headings []truthHeading
	lists    []truthList
	code     [][]string // the code blocks' lines
	links    []truthLink
	images   []string   // alt texts
	tabbed   [][]string // the words of each paragraph set with a tab (a label flush right), outside tables
	header   string     // the running header, "" when none
	footer   bool       // a "Page N" footer
	paras    []truthPara
	notes    []string // the footnotes' words, read after the body (at the foot of its one page)
	// hyphened is the words written with a soft hyphen (U+00AD, where a
	// line may break) or a hyphen of their own, as they read whole.
	hyphened []string
}

// truthPara is a body paragraph (not a heading, list item, cell, code or
// caption): its words, whether it follows the paragraph before it with
// nothing between, and whether its font changes inside it (a span or a
// footnote mark).
type truthPara struct {
	words   []string
	follows bool
	spanned bool
	whole   bool // set on one page in one column (style Spaced): one element
}

type truthTable struct {
	name       string
	rows, cols int
	words      []string
	merged     int // cells spanning columns or rows
}

type truthHeading struct {
	level int
	text  string
}

type truthList struct {
	ordered bool
	items   []string
}

type truthLink struct{ url, text string }

// readTruth reads a flat ODF text document the way make-fixtures-pdf
// writes them (one paragraph style per role).
func readTruth(t *testing.T, file string) *pdfTruth {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tr := &pdfTruth{}
	ordered := map[string]bool{}
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	var (
		stack       []string // local names of open elements
		text        strings.Builder
		inBody      bool
		inHeader    bool
		curTable    *truthTable
		curList     *truthList
		curLink     *truthLink
		curCode     []string
		listStyle   string
		inCodeBlock bool
		tabbed      bool // the open paragraph has a tab
		spanned     bool // the open paragraph changes font inside it
		whole       bool // the open paragraph is one element
		inNote      bool
		outer       string // the paragraph's text before its footnote
		citation    string // the footnote's mark, which its note starts with too
		blocks      int    // body blocks ended so far
		paraAt      = -2   // blocks when the last paragraph ended
	)
	attr := func(se xml.StartElement, name string) string {
		for _, a := range se.Attr {
			if a.Name.Local == name {
				return a.Value
			}
		}
		return ""
	}
	flushCode := func() {
		if inCodeBlock {
			tr.code = append(tr.code, curCode)
			curCode, inCodeBlock = nil, false
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			stack = append(stack, tk.Name.Local)
			switch tk.Name.Local {
			case "list-level-style-number":
				ordered[listStyle] = true
			case "list-style":
				listStyle = attr(tk, "name")
			case "text":
				if len(stack) >= 2 && stack[len(stack)-2] == "body" {
					inBody = true
				}
			case "header":
				inHeader = true
			case "table":
				if inBody {
					curTable = &truthTable{name: attr(tk, "name")}
				}
			case "table-column":
				if curTable != nil {
					n, _ := strconv.Atoi(attr(tk, "number-columns-repeated"))
					curTable.cols += max(n, 1)
				}
			case "table-row":
				if curTable != nil {
					curTable.rows++
				}
			case "table-cell":
				if curTable != nil && (attr(tk, "number-columns-spanned") != "" || attr(tk, "number-rows-spanned") != "") {
					curTable.merged++
				}
			case "list":
				if inBody {
					curList = &truthList{ordered: ordered[attr(tk, "style-name")]}
				}
			case "a":
				curLink = &truthLink{url: attr(tk, "href")}
			case "frame":
				if inBody {
					flushCode()
					// Its alt text is its title; one without a title is
					// named by the caption paragraph after it.
					tr.images = append(tr.images, "")
				}
			case "p", "h":
				text.Reset()
				tabbed = false
				if !inNote {
					spanned = false
					whole = attr(tk, "style-name") == "Spaced"
				}
				// Code paragraphs' styles are named Code… (Code, CodeBody).
				code := strings.HasPrefix(attr(tk, "style-name"), "Code")
				if inBody && !code && curTable == nil {
					flushCode()
				}
				if tk.Name.Local == "h" {
					lv, _ := strconv.Atoi(attr(tk, "outline-level"))
					stack[len(stack)-1] = "h" + strconv.Itoa(lv)
				}
				if code {
					stack[len(stack)-1] = "code"
				}
				if attr(tk, "style-name") == "Caption" {
					stack[len(stack)-1] = "caption"
				}
			case "span", "note":
				spanned = true
			case "note-body":
				outer, inNote = text.String(), true
			case "s", "tab", "line-break":
				text.WriteByte(' ')
				tabbed = tabbed || tk.Name.Local == "tab"
			}
		case xml.CharData:
			top := ""
			if len(stack) > 0 {
				top = stack[len(stack)-1]
			}
			switch top {
			case "binary-data", "title", "desc":
				if top == "title" && inBody && len(tr.images) > 0 {
					tr.images[len(tr.images)-1] += string(tk)
				}
				continue
			}
			// A soft hyphen is printed only where the line breaks; the
			// word reads without it.
			cd := string(tk)
			for _, w := range strings.Fields(cd) {
				if w = strings.Trim(w, ".,;:'()"); strings.ContainsAny(w, "\u00ad-") && strings.IndexFunc(w, unicode.IsLetter) >= 0 && inBody {
					tr.hyphened = append(tr.hyphened, strings.ReplaceAll(w, "\u00ad", ""))
				}
			}
			cd = strings.ReplaceAll(cd, "\u00ad", "")
			text.WriteString(cd)
			if top == "note-citation" {
				citation = strings.TrimSpace(string(tk))
			}
			if curLink != nil {
				curLink.text += string(tk)
			}
		case xml.EndElement:
			name := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			s := strings.Join(strings.Fields(text.String()), " ")
			switch {
			case name == "header":
				inHeader = false
			case inHeader && name == "p":
				tr.header = s
			case name == "footer":
				tr.footer = true
			case !inBody:
			case name == "note-body":
				text.Reset()
				text.WriteString(outer)
				inNote = false
			case inNote && name == "p":
				tr.notes = append(append(tr.notes, citation), strings.Fields(s)...)
				text.Reset()
			case name == "caption":
				blocks++
				tr.words = append(tr.words, strings.Fields(s)...)
				if n := len(tr.images); n > 0 && tr.images[n-1] == "" {
					tr.images[n-1] = s
				}
				text.Reset()
			case name == "p" || name == "code" || strings.HasPrefix(name, "h"):
				if name == "header" {
					break
				}
				ws := strings.Fields(s)
				tr.words = append(tr.words, ws...)
				inItem := len(stack) > 0 && stack[len(stack)-1] == "list-item"
				if name == "p" && curTable == nil && !inItem {
					// Lines set with a tab (a definition and its kind, a
					// numbered listing) are lines, not paragraphs.
					tr.paras = append(tr.paras, truthPara{words: ws, follows: paraAt == blocks-1 && !tabbed, spanned: spanned, whole: whole})
					paraAt = blocks
				}
				blocks++
				if curTable != nil {
					curTable.words = append(curTable.words, ws...)
				} else if tabbed && inBody {
					tr.tabbed = append(tr.tabbed, ws)
				}
				if name == "code" {
					inCodeBlock = true
					curCode = append(curCode, s)
				}
				if lv, err := strconv.Atoi(strings.TrimPrefix(name, "h")); err == nil && strings.HasPrefix(name, "h") {
					tr.headings = append(tr.headings, truthHeading{lv, s})
				}
				if curList != nil && len(stack) > 0 && stack[len(stack)-1] == "list-item" {
					curList.items = append(curList.items, s)
				}
				text.Reset()
			case name == "table":
				if curTable != nil {
					tr.tables = append(tr.tables, *curTable)
				}
				curTable = nil
			case name == "list":
				if curList != nil {
					tr.lists = append(tr.lists, *curList)
				}
				curList = nil
			case name == "a":
				if curLink != nil {
					tr.links = append(tr.links, *curLink)
				}
				curLink = nil
			case name == "text":
				flushCode()
				inBody = false
				tr.words = append(tr.words, tr.notes...)
			}
		}
	}
	return tr
}

// furniture is the categories a running header or footer becomes.
var furniture = map[string]bool{"Header": true, "Footer": true, "PageNumber": true}

// leadingMarker is a list marker an item's text starts with.
var leadingMarker = regexp.MustCompile(`^(?:[•◦▪▫‣⁃●○■□\x{F0B7}\-–—*]|\(?[0-9]{1,3}[.)]|\(?[a-zA-Z][.)]|\(?[ivxlc]{1,6}[.)])\s+`)

// bodyWords is the document's words outside the running furniture, list
// markers left out (the source's items have none: they are numbered by
// their style).
func bodyWords(doc *dpe.Document) []string {
	var out []string
	for _, p := range doc.Pages {
		for _, el := range p.Elements {
			// An Image's text is its alt text, not words printed on the
			// page.
			if furniture[el.Category] || el.Category == "Image" {
				continue
			}
			text := el.Text
			if el.Category == "ListItem" {
				text = leadingMarker.ReplaceAllString(text, "")
			}
			// A continued table's header rows, repeated on its page, are
			// printed once in the source.
			if n := metaInt(el, "repeated_header_rows"); el.Category == "Table" && n > 0 {
				rows := strings.Split(text, "\n")
				text = strings.Join(rows[min(n, len(rows)):], "\n")
			}
			for _, w := range strings.Fields(text) {
				if orderWord(w) != "" && w != "\uF0B7" {
					out = append(out, w)
				}
			}
		}
	}
	return out
}

// scoreCheck is one measured property of one file.
type scoreCheck struct {
	name  string
	ok    bool
	score string // what was measured
}

// pdfScoreGaps are the checks the converter does not pass yet, with what
// is missing. A listed check that passes fails the test, so the list
// cannot go stale; a check not listed must pass.
var pdfScoreGaps = map[string]string{}

func TestPDFGroundTruth(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "pdf", "*.fodt"))
	if len(files) == 0 {
		t.Fatal("no ground-truth sources in testdata/pdf (scripts/make-fixtures-pdf writes them)")
	}
	c := testConverter(t)
	for _, src := range files {
		name := strings.TrimSuffix(filepath.Base(src), ".fodt")
		t.Run(name, func(t *testing.T) {
			truth := readTruth(t, src)
			doc := convertFixture(t, c, filepath.Join("pdf", name+".pdf"))
			for _, ck := range scorePDF(truth, doc) {
				key := name + "/" + ck.name
				gap, known := pdfScoreGaps[key]
				switch {
				case ck.ok && known:
					t.Errorf("%s passes now (%s): take it out of pdfScoreGaps", key, ck.score)
				case ck.ok:
					t.Logf("%s: %s", key, ck.score)
				case known:
					t.Logf("%s: %s — not there yet: %s", key, ck.score, gap)
				default:
					t.Errorf("%s: %s", key, ck.score)
				}
			}
		})
	}
}

// scorePDF measures a conversion against its source.
func scorePDF(tr *pdfTruth, doc *dpe.Document) []scoreCheck {
	var out []scoreCheck
	add := func(name string, ok bool, format string, args ...any) {
		out = append(out, scoreCheck{name, ok, fmt.Sprintf(format, args...)})
	}
	ours := bodyWords(doc)
	common := multisetCommon(tr.words, ours)
	if len(tr.words) > 0 {
		recall := float64(common) / float64(len(tr.words))
		precision := float64(common) / float64(max(len(ours), 1))
		order := float64(lcs(tr.words, ours)) / float64(len(tr.words))
		add("recall", recall >= 0.99, "word recall %.4f (want ≥ 0.99; %d of %d words)", recall, common, len(tr.words))
		add("precision", precision >= 0.99, "word precision %.4f (want ≥ 0.99; %d of %d words)", precision, common, len(ours))
		add("order", order >= 0.97, "reading order %.4f (want ≥ 0.97)", order)
	}

	// A paragraph set with a tab (a definition and its kind flush right)
	// reads left to right, its words together: on one baseline a taller
	// font's top is higher, which must not put the right part first.
	joined := " " + strings.Join(ours, " ") + " "
	for k, ws := range tr.tabbed {
		ok := strings.Contains(joined, " "+strings.Join(ws, " ")+" ")
		add(fmt.Sprintf("tabbed %d", k+1), ok, "tabbed line %q read left to right: %v", strings.Join(ws, " "), ok)
	}

	// A word broken at a line's end reads whole: without the hyphen
	// printed at the break, with its own.
	if len(tr.hyphened) > 0 {
		have := map[string]bool{}
		for _, w := range ours {
			have[strings.Trim(w, ".,;:'()")] = true
		}
		var broken []string
		for _, w := range tr.hyphened {
			if !have[w] {
				broken = append(broken, w)
			}
		}
		add("broken words", len(broken) == 0, "%d words with a soft or own hyphen; not read whole: %q", len(tr.hyphened), broken)
	}

	// Paragraphs: two paragraphs one after the other are never one
	// element (the words where one ends and the next begins are not in
	// one element's text), and a paragraph whose font changes inside it
	// reads as written (no space where the source has none).
	var texts [][]string
	for _, p := range doc.Pages {
		for _, el := range p.Elements {
			texts = append(texts, strings.Fields(el.Text))
		}
	}
	var together []string
	for k := 1; k < len(tr.paras); k++ {
		a, b := tr.paras[k-1].words, tr.paras[k].words
		if !tr.paras[k].follows || len(a) == 0 || len(b) == 0 {
			continue
		}
		seam := append(append([]string{}, a[max(len(a)-3, 0):]...), b[:min(3, len(b))]...)
		for _, ws := range texts {
			if containsRun(ws, seam) {
				together = append(together, strings.Join(seam, " "))
				break
			}
		}
	}
	if len(tr.paras) > 1 {
		add("paragraphs", len(together) == 0, "%d paragraphs; run together at: %q", len(tr.paras), together)
	}
	for k, pa := range tr.paras {
		if pa.whole {
			ok := false
			for _, ws := range texts {
				ok = ok || slices.Equal(ws, pa.words)
			}
			add(fmt.Sprintf("whole %d", k+1), ok, "paragraph %d is one element: %v", k+1, ok)
		}
		if pa.spanned {
			ok := strings.Contains(joined, " "+strings.Join(pa.words, " ")+" ")
			add(fmt.Sprintf("spanned %d", k+1), ok, "paragraph %d (its font changes inside it) read as written: %v", k+1, ok)
		}
	}

	// Tables: every source table is found (its parts, when it continues
	// on the next page, together) with its rows × columns.
	// A table is one Table element per page it is on.
	type found struct {
		rows, cols int
		words      []string
		parts      int
		page       int
		split      bool // two parts on one page
		id         string
		merged     int    // cells with colspan or rowspan
		from       string // continued_from
		linked     bool   // each part after the first continues the one before
	}
	var tables []found
	for _, p := range doc.Pages {
		for _, el := range p.Elements {
			if el.Category != "Table" {
				continue
			}
			var h string
			json.Unmarshal(el.Metadata["text_as_html"], &h)
			rows, cols := htmlGrid(h)
			var from string
			json.Unmarshal(el.Metadata["continued_from"], &from)
			rows -= metaInt(el, "repeated_header_rows")
			merged := len(regexp.MustCompile(`<td[^>]* (colspan|rowspan)=`).FindAllString(h, -1))
			tables = append(tables, found{rows: rows, cols: cols, words: strings.Fields(el.Text), parts: 1, page: p.Index, id: el.ID, from: from, merged: merged})
		}
	}
	for _, st := range tr.tables {
		got := found{page: -1, linked: true}
		for _, ft := range tables {
			if multisetCommon(ft.words, st.words)*2 > len(ft.words) {
				got.rows += ft.rows
				got.cols = max(got.cols, ft.cols)
				if got.parts > 0 && ft.from != got.id {
					got.linked = false
				}
				got.parts++
				got.split = got.split || got.page == ft.page
				got.page = ft.page
				got.id = ft.id
				got.merged += ft.merged
			}
		}
		add("table "+st.name, got.rows == st.rows && got.cols == st.cols && !got.split && got.linked && got.merged == st.merged,
			"table %s: %d×%d with %d merged cells in %d Table elements, split on a page: %v, parts linked by continued_from: %v (want %d×%d with %d merged)",
			st.name, got.rows, got.cols, got.merged, got.parts, got.split, got.linked, st.rows, st.cols, st.merged)
	}
	if len(tr.tables) == 0 {
		add("no tables", len(tables) == 0, "%d Table elements (want 0)", len(tables))
	}

	// Headings: Title elements with their level as category_depth.
	titles := map[string]int{}
	for _, el := range elementsOf(doc, "Title") {
		titles[el.Text] = metaInt(el, "category_depth") + 1
	}
	for _, hd := range tr.headings {
		lv, ok := titles[hd.text]
		add("heading "+hd.text, ok && lv == hd.level, "heading %q: level %d (want %d)", hd.text, lv, hd.level)
	}
	// The outline (the PDF's bookmarks) names the pages in the sidebar.
	if len(tr.headings) > 0 {
		named := 0
		for _, p := range doc.Pages {
			for _, hd := range tr.headings {
				if p.Title == hd.text {
					named++
					break
				}
			}
		}
		add("page titles", named == len(doc.Pages), "%d of %d pages titled from the outline", named, len(doc.Pages))
	}

	// Lists: each item is one ListItem, ordered when its list is.
	items := map[string]*dpe.Element{}
	for _, el := range elementsOf(doc, "ListItem") {
		items[leadingMarker.ReplaceAllString(el.Text, "")] = el
	}
	for k, l := range tr.lists {
		okItems, okOrder := 0, 0
		for _, it := range l.items {
			el := items[it]
			if el == nil {
				continue
			}
			okItems++
			var ord bool
			json.Unmarshal(el.Metadata["ordered"], &ord)
			if ord == l.ordered && (!l.ordered || metaInt(el, "item_number") > 0) {
				okOrder++
			}
		}
		add(fmt.Sprintf("list %d items", k+1), okItems == len(l.items), "list %d: %d of %d items are ListItem elements", k+1, okItems, len(l.items))
		if l.ordered {
			add(fmt.Sprintf("list %d ordered", k+1), okOrder == len(l.items), "list %d: %d of %d items ordered with item_number", k+1, okOrder, len(l.items))
		}
	}

	// A paragraph's wrapped line that starts like an item ("2. The …")
	// is no ListItem: there are as many as the lists have items.
	if len(tr.words) > 0 {
		want := 0
		for _, l := range tr.lists {
			want += len(l.items)
		}
		n := len(elementsOf(doc, "ListItem"))
		add("list item count", n == want, "%d ListItem elements (want %d, the lists' items)", n, want)
	}

	// Code blocks are CodeSnippet elements.
	for k, cb := range tr.code {
		want := strings.Fields(strings.Join(cb, " "))
		ok := false
		for _, el := range elementsOf(doc, "CodeSnippet") {
			if strings.Join(strings.Fields(el.Text), " ") == strings.Join(want, " ") {
				ok = true
			}
		}
		add(fmt.Sprintf("code %d", k+1), ok, "code block %d as a CodeSnippet: %v", k+1, ok)
	}

	// Links: the URL is in link_urls of the element holding the anchor.
	for k, ln := range tr.links {
		ok := false
		for _, p := range doc.Pages {
			for _, el := range p.Elements {
				var urls []string
				json.Unmarshal(el.Metadata["link_urls"], &urls)
				for _, u := range urls {
					if u == ln.url && strings.Contains(el.Text, ln.text) {
						ok = true
					}
				}
			}
		}
		add(fmt.Sprintf("link %d", k+1), ok, "link %s on %q: %v", ln.url, ln.text, ok)
	}

	// Images: one Image element per picture, with its alt text (the
	// PDF's /Alt, or the caption) as its text and a PNG preview.
	if len(tr.images) > 0 {
		imgs := elementsOf(doc, "Image")
		alts, previews := map[string]int{}, 0
		for _, el := range imgs {
			alts[el.Text]++
			var b64 string
			json.Unmarshal(el.Metadata["image_base64"], &b64)
			if data, err := base64.StdEncoding.DecodeString(b64); err == nil && bytes.HasPrefix(data, []byte("\x89PNG")) {
				previews++
			}
		}
		var missing []string
		for _, a := range tr.images {
			if alts[a] == 0 {
				missing = append(missing, a)
			}
			alts[a]--
		}
		add("images", len(imgs) == len(tr.images) && len(missing) == 0 && previews == len(imgs),
			"%d Image elements (want %d), %d with a PNG preview; alt texts not found: %q", len(imgs), len(tr.images), previews, missing)
	}
	// A caption is a FigureCaption.
	for _, a := range tr.images {
		if captionText.MatchString(a) {
			ok := false
			for _, el := range elementsOf(doc, "FigureCaption") {
				ok = ok || el.Text == a
			}
			add("caption "+a, ok, "caption %q as a FigureCaption: %v", a, ok)
		}
	}

	// Running furniture: on every page the header and the page number are
	// tagged, and nothing else is.
	if tr.header != "" || tr.footer {
		tagged, wrong := 0, []string{}
		for i, p := range doc.Pages {
			head, foot := tr.header == "", !tr.footer
			for _, el := range p.Elements {
				if !furniture[el.Category] {
					continue
				}
				switch el.Text {
				case tr.header:
					head = true
				case "Page " + strconv.Itoa(i+1):
					foot = true
				default:
					wrong = append(wrong, el.Text)
				}
			}
			if head && foot {
				tagged++
			}
		}
		add("furniture", tagged == len(doc.Pages) && len(wrong) == 0, "header and footer tagged on %d of %d pages; other text tagged: %q", tagged, len(doc.Pages), wrong)
	}

	if tr.header == "" && !tr.footer && len(tr.words) > 0 {
		var tagged []string
		for _, p := range doc.Pages {
			for _, el := range p.Elements {
				if furniture[el.Category] {
					tagged = append(tagged, el.Category+": "+el.Text)
				}
			}
		}
		add("no furniture", len(tagged) == 0, "no running header or footer; tagged: %q", tagged)
	}

	// A page without a text layer says so.
	if len(tr.words) == 0 {
		ok := len(doc.Pages) > 0
		for _, p := range doc.Pages {
			var no bool
			var m map[string]json.RawMessage
			json.Unmarshal(p.Raw, &m)
			var meta map[string]json.RawMessage
			json.Unmarshal(m["metadata"], &meta)
			json.Unmarshal(meta["no_text_layer"], &no)
			ok = ok && no
		}
		add("no text layer", ok, "pages without text marked no_text_layer: %v", ok)
	}
	return out
}

// htmlGrid is a text_as_html table's rows and columns (the widest row,
// counting colspan).
func htmlGrid(h string) (rows, cols int) {
	for _, tr := range strings.Split(h, "<tr>")[1:] {
		rows++
		w := 0
		for _, td := range regexp.MustCompile(`<t[dh]( colspan="(\d+)")?`).FindAllStringSubmatch(tr, -1) {
			n, _ := strconv.Atoi(td[2])
			w += max(n, 1)
		}
		cols = max(cols, w)
	}
	return rows, cols
}

// containsRun reports whether seam occurs in ws, word after word.
func containsRun(ws, seam []string) bool {
	for i := 0; i+len(seam) <= len(ws); i++ {
		if slices.Equal(ws[i:i+len(seam)], seam) {
			return true
		}
	}
	return false
}
