// Package gen generates deterministic DPE documents for benchmarks and
// tests (docs/performance.md): (a) a large multi-page document, inline or in
// manifest mode, and (b) a document holding one large table.
package dpegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Options shape a generated document. Zero fields take the defaults of
// PresetA scaled down (10 pages × 20 elements).
type Options struct {
	Pages           int
	ElementsPerPage int
	// TextBytes is the rough size of a paragraph's text.
	TextBytes int
	// TableEvery puts a Table element on every n-th page (0: none).
	TableEvery           int
	TableRows, TableCols int
	Seed                 uint64
	// RareWord is placed once, in page RarePage's third element ("" → none).
	RareWord string
	RarePage int
	// DocRef and Host name the document (defaults "bench-a", "io.github.dpetui.bench").
	DocRef, Host string
}

// PresetA is the Performance section's document (a): ~50 MB, 2,000 pages, ~100k elements,
// mixed categories, a table every few pages, one rare word.
func PresetA() Options {
	return Options{Pages: 2000, ElementsPerPage: 50, TextBytes: 360, TableEvery: 4, TableRows: 12, TableCols: 6,
		Seed: 1, RareWord: "xylophonist", RarePage: 1500}
}

// PresetB is the Performance section's document (b): one page with one 10,000-row × 12-column table.
func PresetB() Options {
	return Options{Pages: 1, ElementsPerPage: 1, TableEvery: 1, TableRows: 10000, TableCols: 12, Seed: 2, DocRef: "bench-b"}
}

func (o Options) norm() Options {
	if o.Pages <= 0 {
		o.Pages = 10
	}
	if o.ElementsPerPage <= 0 {
		o.ElementsPerPage = 20
	}
	if o.TextBytes <= 0 {
		o.TextBytes = 300
	}
	if o.TableRows <= 0 {
		o.TableRows = 8
	}
	if o.TableCols <= 0 {
		o.TableCols = 4
	}
	if o.DocRef == "" {
		o.DocRef = "bench-a"
	}
	if o.Host == "" {
		o.Host = "io.github.dpetui.bench"
	}
	return o
}

type writer struct {
	bytes.Buffer
	rng   *rand.Rand
	o     Options
	sylls []string
}

const syllables = "ka lo mi ne ru ta vo shi den par tor quel ban cor fen"

func (w *writer) word() string {
	n := 1 + w.rng.IntN(3)
	var b strings.Builder
	for range n {
		if w.sylls == nil {
			w.sylls = strings.Fields(syllables)
		}
		b.WriteString(w.sylls[w.rng.IntN(len(w.sylls))])
	}
	return b.String()
}

func (w *writer) sentence(bytesWanted int) string {
	var b strings.Builder
	for b.Len() < bytesWanted {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		wd := w.word()
		if b.Len() == 0 {
			wd = strings.ToUpper(wd[:1]) + wd[1:]
		}
		b.WriteString(wd)
	}
	b.WriteByte('.')
	return b.String()
}

func (w *writer) str(s string) {
	b, _ := json.Marshal(s)
	w.Write(b)
}

func (w *writer) table(rows, cols int) (text, html string) {
	var t, h strings.Builder
	h.WriteString("<table><thead><tr>")
	for c := range cols {
		if c > 0 {
			t.WriteByte('\t')
		}
		name := fmt.Sprintf("col%d", c)
		t.WriteString(name)
		h.WriteString("<th>" + name + "</th>")
	}
	t.WriteByte('\n')
	h.WriteString("</tr></thead><tbody>")
	for r := range rows {
		h.WriteString("<tr>")
		for c := range cols {
			var cell string
			if c == 0 {
				cell = fmt.Sprintf("row %d", r)
			} else if c%2 == 0 {
				cell = w.word()
			} else {
				cell = fmt.Sprintf("%d.%02d", w.rng.IntN(100000), w.rng.IntN(100))
			}
			if c > 0 {
				t.WriteByte('\t')
			}
			t.WriteString(cell)
			h.WriteString("<td>" + cell + "</td>")
		}
		t.WriteByte('\n')
		h.WriteString("</tr>")
	}
	h.WriteString("</tbody></table>")
	return t.String(), h.String()
}

func (w *writer) element(page, i int, id *int) {
	o := w.o
	*id++
	cat := "NarrativeText"
	text := ""
	meta := ""
	switch {
	case o.TableEvery > 0 && page%o.TableEvery == 0 && i == 1 || o.ElementsPerPage == 1 && o.TableEvery > 0:
		cat = "Table"
		t, h := w.table(o.TableRows, o.TableCols)
		text = t
		hb, _ := json.Marshal(h)
		meta = `"text_as_html":` + string(hb) + `,`
	case i == 0:
		cat = "Title"
		text = fmt.Sprintf("Chapter %d: %s", page+1, w.sentence(30))
		meta = `"category_depth":0,`
	case i%10 == 4:
		cat = "ListItem"
		text = w.sentence(80)
		meta = `"category_depth":1,`
	case i%10 == 7:
		cat = "CodeSnippet"
		text = fmt.Sprintf("func %s() int {\n\treturn %d\n}", w.word(), w.rng.IntN(1000))
		meta = `"language":"go",`
	case i%25 == 9:
		cat = "Image"
		text = "Figure " + w.word()
		meta = `"image_mime_type":"image/png","image_path":"fig.png",`
	case i%25 == 19:
		cat = "Formula"
		text = "E = mc^2"
	default:
		text = w.sentence(o.TextBytes)
	}
	if o.RareWord != "" && page == o.RarePage && i == 2 {
		text = "The " + o.RareWord + " played. " + text
	}
	w.WriteString(`{"element_id":`)
	w.str(fmt.Sprintf("e%07d", *id))
	w.WriteString(`,"category":"` + cat + `","text":`)
	w.str(text)
	fmt.Fprintf(w, `,"doc_ref":%q,"page_index":%d,"ele_metadata":{%s"languages":["eng"],"coordinates":{"points":[[72,%d],[540,%d]],"system":"PointSpace"}}}`,
		o.DocRef, page, meta, 100+i*12, 112+i*12)
}

func (w *writer) pageObject(page int, id *int, withURI string) {
	o := w.o
	fmt.Fprintf(w, `{"page_index":%d,"title":`, page)
	w.str(fmt.Sprintf("Page %d", page+1))
	fmt.Fprintf(w, `,"doc_ref":%q`, o.DocRef)
	if withURI != "" {
		w.WriteString(`,"uri":`)
		w.str(withURI)
		fmt.Fprintf(w, `,"element_count":%d}`, o.ElementsPerPage)
		return
	}
	w.WriteString(`,"elements":[`)
	for i := range o.ElementsPerPage {
		if i > 0 {
			w.WriteByte(',')
		}
		w.element(page, i, id)
	}
	w.WriteString("]}")
}

func (w *writer) header() {
	o := w.o
	fmt.Fprintf(w, `{"doc_ref":%q,"uri":"dpe://%s/%s","file_type":"pdf","title":"Generated benchmark document","summary":"Deterministic test data","page_count":%d,"keywords":["bench","generated"],"last_modified":"2026-01-15T08:30:00Z","pages":[`,
		o.DocRef, o.Host, o.DocRef, o.Pages)
}

// Document returns the whole document with inline pages.
func Document(o Options) []byte {
	o = o.norm()
	w := &writer{rng: rand.New(rand.NewPCG(o.Seed, 7)), o: o}
	w.Grow(o.Pages * o.ElementsPerPage * (o.TextBytes + 250))
	w.header()
	id := 0
	for p := range o.Pages {
		if p > 0 {
			w.WriteByte(',')
		}
		w.pageObject(p, &id, "")
	}
	w.WriteString("]}")
	return w.Bytes()
}

// Manifest returns the same document in manifest mode: the document with
// page URIs from pageURI(i), and each page object (with elements) as its
// own JSON. The element content equals Document's for the same Options.
func Manifest(o Options, pageURI func(i int) string) (doc []byte, pages [][]byte) {
	o = o.norm()
	w := &writer{rng: rand.New(rand.NewPCG(o.Seed, 7)), o: o}
	id := 0
	for p := range o.Pages {
		w.Reset()
		w.pageObject(p, &id, "")
		pages = append(pages, bytes.Clone(w.Bytes()))
	}
	d := &writer{o: o}
	d.header()
	for p := range o.Pages {
		if p > 0 {
			d.WriteByte(',')
		}
		d.pageObject(p, &id, pageURI(p))
	}
	d.WriteString("]}")
	return d.Bytes(), pages
}
