// Package docgen writes synthetic DPE documents for benchmarks (issue 5):
// (a) a ~50 MB, 2,000-page document with ~100k elements of mixed categories
// and a table every few pages, inline or in manifest mode; (b) one
// 10,000-row × 12-column table. Output is deterministic for a given size so
// that benchmark runs compare like with like.
package docgen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// LargeOptions shapes document (a).
type LargeOptions struct {
	Pages           int // default 2000
	ElementsPerPage int // default 50
	TableEvery      int // a table on every Nth page; default 4
	// RareWordPage puts the word RareWord once, on this page (for the
	// search benchmark); -1 for none.
	RareWordPage int
}

// RareWord appears exactly once in document (a).
const RareWord = "xylophonist"

func (o *LargeOptions) defaults() {
	if o.Pages == 0 {
		o.Pages = 2000
	}
	if o.ElementsPerPage == 0 {
		o.ElementsPerPage = 50
	}
	if o.TableEvery == 0 {
		o.TableEvery = 4
	}
	if o.RareWordPage == 0 {
		o.RareWordPage = o.Pages * 3 / 4
	}
}

var words = strings.Fields(`the quarterly report shows revenue growth across every region while
operating costs remained flat and the board approved a new investment plan for data platforms
customers asked for faster search better exports and clearer tables in the document viewer
engineering shipped the resolver cache and reduced latency by half during peak traffic`)

func sentence(seed, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[(seed*7+i*13)%len(words)])
	}
	b.WriteByte('.')
	return b.String()
}

type element struct {
	ID        string         `json:"element_id"`
	Category  string         `json:"category"`
	Text      string         `json:"text"`
	DocRef    string         `json:"doc_ref"`
	PageIndex int            `json:"page_index"`
	Meta      map[string]any `json:"ele_metadata,omitempty"`
}

type page struct {
	Index        int       `json:"page_index"`
	Title        string    `json:"title"`
	DocRef       string    `json:"doc_ref"`
	URI          string    `json:"uri,omitempty"`
	ElementCount int       `json:"element_count,omitempty"`
	Elements     []element `json:"elements,omitempty"`
}

func largePage(o LargeOptions, p int) page {
	pg := page{Index: p, Title: fmt.Sprintf("Section %d", p+1), DocRef: "large"}
	for e := 0; e < o.ElementsPerPage; e++ {
		el := element{ID: fmt.Sprintf("p%d-e%d", p, e), DocRef: "large", PageIndex: p}
		switch {
		case e == 0:
			el.Category, el.Text = "Title", pg.Title
			el.Meta = map[string]any{"category_depth": 0}
		case e == 1 && p%o.TableEvery == 0:
			el.Category = "Table"
			var hb, tb strings.Builder
			hb.WriteString("<table><tr><th>Region</th><th>Q1</th><th>Q2</th><th>Q3</th><th>Q4</th></tr>")
			for r := 0; r < 20; r++ {
				fmt.Fprintf(&hb, "<tr><td>R%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td></tr>", r, r*p%97, r*3, r*5+p, r*7)
				fmt.Fprintf(&tb, "R%d\t%d\t%d\t%d\t%d\n", r, r*p%97, r*3, r*5+p, r*7)
			}
			hb.WriteString("</table>")
			el.Text = tb.String()
			el.Meta = map[string]any{"text_as_html": hb.String()}
		case e%10 == 5:
			el.Category, el.Text = "ListItem", sentence(p+e, 8)
			el.Meta = map[string]any{"category_depth": e % 3}
		case e%17 == 3:
			el.Category = "CodeSnippet"
			el.Text = fmt.Sprintf("func f%d(x int) int {\n\treturn x * %d\n}\n", e, p)
			el.Meta = map[string]any{"language": "go"}
		default:
			el.Category, el.Text = "NarrativeText", sentence(p*31+e, 70)
		}
		if p == o.RareWordPage && e == o.ElementsPerPage/2 {
			el.Category, el.Text = "NarrativeText", sentence(e, 20)+" A "+RareWord+" played."
		}
		pg.Elements = append(pg.Elements, el)
	}
	return pg
}

type docHeader struct {
	DocRef    string   `json:"doc_ref"`
	URI       string   `json:"uri"`
	Title     string   `json:"title"`
	PageCount int      `json:"page_count"`
	FileType  string   `json:"file_type"`
	Keywords  []string `json:"keywords"`
}

// WriteLarge writes document (a) with inline pages.
func WriteLarge(w io.Writer, o LargeOptions) error {
	o.defaults()
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := writeHeader(bw, o.Pages); err != nil {
		return err
	}
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for p := 0; p < o.Pages; p++ {
		if p > 0 {
			bw.WriteByte(',')
		}
		if err := enc.Encode(largePage(o, p)); err != nil {
			return err
		}
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

func writeHeader(bw *bufio.Writer, pages int) error {
	h, err := json.Marshal(docHeader{DocRef: "large", URI: "dpe://io.github.dpetui.bench/large", Title: "Synthetic large document", PageCount: pages, FileType: "pdf", Keywords: []string{"bench", "large"}})
	if err != nil {
		return err
	}
	bw.Write(h[:len(h)-1])
	bw.WriteString(`,"pages":[`)
	return nil
}

// WriteLargeManifest writes document (a) in manifest mode into dir:
// document.json whose pages carry file:// URIs, and one page-N.json each.
func WriteLargeManifest(dir string, o LargeOptions) (string, error) {
	o.defaults()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	docPath := filepath.Join(abs, "document.json")
	f, err := os.Create(docPath)
	if err != nil {
		return "", err
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	if err := writeHeader(bw, o.Pages); err != nil {
		return "", err
	}
	for p := 0; p < o.Pages; p++ {
		pg := largePage(o, p)
		name := filepath.Join(abs, fmt.Sprintf("page-%d.json", p))
		b, err := json.Marshal(pg)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(name, b, 0o644); err != nil {
			return "", err
		}
		m := page{Index: p, Title: pg.Title, DocRef: pg.DocRef, URI: "file://" + filepath.ToSlash(name), ElementCount: len(pg.Elements)}
		mb, _ := json.Marshal(m)
		if p > 0 {
			bw.WriteByte(',')
		}
		bw.Write(mb)
	}
	bw.WriteString("]}\n")
	if err := bw.Flush(); err != nil {
		return "", err
	}
	return docPath, nil
}

// WriteWideTable writes document (b): one Table element of rows × cols.
func WriteWideTable(w io.Writer, rows, cols int) error {
	var hb, tb strings.Builder
	hb.WriteString("<table><tr>")
	for c := 0; c < cols; c++ {
		fmt.Fprintf(&hb, "<th>Column %d</th>", c+1)
		if c > 0 {
			tb.WriteByte('\t')
		}
		fmt.Fprintf(&tb, "Column %d", c+1)
	}
	hb.WriteString("</tr>")
	tb.WriteByte('\n')
	for r := 0; r < rows; r++ {
		hb.WriteString("<tr>")
		for c := 0; c < cols; c++ {
			cell := fmt.Sprintf("r%dc%d %s", r+1, c+1, words[(r+c)%len(words)])
			fmt.Fprintf(&hb, "<td>%s</td>", html.EscapeString(cell))
			if c > 0 {
				tb.WriteByte('\t')
			}
			tb.WriteString(cell)
		}
		hb.WriteString("</tr>")
		tb.WriteByte('\n')
	}
	hb.WriteString("</table>")
	doc := map[string]any{
		"doc_ref": "wide", "uri": "dpe://io.github.dpetui.bench/wide", "title": "10k-row table", "page_count": 1,
		"pages": []any{map[string]any{"page_index": 0, "title": "Data", "doc_ref": "wide", "elements": []any{
			map[string]any{"element_id": "t1", "category": "Title", "text": "Data", "doc_ref": "wide", "page_index": 0},
			map[string]any{"element_id": "t2", "category": "Table", "text": tb.String(), "doc_ref": "wide", "page_index": 0,
				"ele_metadata": map[string]any{"text_as_html": hb.String()}},
		}}},
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}
