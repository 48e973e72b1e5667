package library

import (
	"fmt"
	"strings"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
)

// largeManualPages is the size of the generated manual in the corpus: ~300
// pages and over 2 MB of JSON, so the http resolver serves it in manifest
// mode (a document above the manifest threshold).
const largeManualPages = 300

// LargeDocument generates a deterministic multi-page Document JSON: every
// page has a header, a title, narrative paragraphs, list items, a footer and
// a page number; every second page a table, every fifth a code snippet. About
// 8 KB per page. The corpus uses it with 300 pages; benchmarks can ask for
// more.
func LargeDocument(uri, docRef string, pages int) ([]byte, error) {
	if pages < 1 {
		pages = 1
	}
	b := convert.BookWithin(convert.Limits{}, docRef)
	rng := xorshift(0x9e3779b97f4a7c15)
	words := manualWords()
	sentence := func(n int) string {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			w := words[rng.next()%uint64(len(words))]
			if i == 0 {
				w = capitalize(w)
			} else {
				sb.WriteByte(' ')
			}
			sb.WriteString(w)
		}
		sb.WriteByte('.')
		return sb.String()
	}
	paragraph := func() string {
		var parts []string
		for i := 0; i < 6; i++ {
			parts = append(parts, sentence(10+int(rng.next()%8)))
		}
		return strings.Join(parts, " ")
	}
	root := ""
	for p := 0; p < pages; p++ {
		chapter, section := p/10+1, p%10+1
		title := fmt.Sprintf("%d.%d %s %s", chapter, section, capitalize(words[(p*7)%len(words)]), words[(p*13+5)%len(words)])
		b.StartPage(title)
		b.Add(dpe.CategoryHeader, fmt.Sprintf("Station Operations Manual — chapter %d", chapter), nil)
		if p == 0 {
			root = b.Add(dpe.CategoryTitle, "Station Operations Manual", map[string]any{"category_depth": 0})
		}
		t := b.Add(dpe.CategoryTitle, title, map[string]any{"category_depth": 1, "parent_id": root})
		for i := 0; i < 8; i++ {
			b.Add(dpe.CategoryNarrativeText, paragraph(), map[string]any{"parent_id": t})
		}
		for i := 0; i < 3; i++ {
			b.Add(dpe.CategoryListItem, sentence(6), map[string]any{"parent_id": t, "category_depth": 0})
		}
		if p%2 == 0 {
			header := []string{"Step", "Component", "Reading", "Limit", "Status"}
			var rows [][]string
			for r := 0; r < 8; r++ {
				rows = append(rows, []string{
					fmt.Sprint(r + 1), words[rng.next()%uint64(len(words))],
					fmt.Sprintf("%d.%02d", rng.next()%100, rng.next()%100),
					fmt.Sprintf("%d", 50+rng.next()%50), []string{"ok", "check", "replace"}[rng.next()%3],
				})
			}
			b.Add(dpe.CategoryTable, convert.PlainTableText(header, rows), map[string]any{
				"parent_id": t, "text_as_html": convert.PlainTableHTML(header, rows),
			})
		}
		if p%5 == 0 {
			code := fmt.Sprintf("# checklist %d.%d\nfor unit in $(seq 1 %d); do\n  probe --unit \"$unit\" --limit %d || echo \"unit $unit needs service\"\ndone\n",
				chapter, section, 3+p%7, 40+p%60)
			b.Add(dpe.CategoryCodeSnippet, code, map[string]any{"parent_id": t, "language": "bash"})
		}
		b.Add(dpe.CategoryFooter, "Internal use — generated sample content", nil)
		b.Add(dpe.CategoryPageNumber, fmt.Sprint(p+1), nil)
	}
	info := largeInfo(b.Len())
	return b.JSON(convert.Head{DocRef: docRef, URI: uri, FileType: info.FileType, Title: info.Title, Summary: info.Summary,
		Keywords: info.Keywords, LastModified: info.LastModified})
}

// largeInfo is the listing of LargeDocument with this many pages, known
// without generating it: the fields its JSON carries, from here.
func largeInfo(pages int) docInfo {
	return docInfo{
		Title:        "Station Operations Manual",
		Summary:      fmt.Sprintf("A generated %d-page manual with tables and code on many pages; large enough for manifest mode.", pages),
		FileType:     "pdf",
		PageCount:    pages,
		Keywords:     []string{"manual", "large", "generated"},
		LastModified: "2026-02-20T07:45:00Z",
	}
}

// xorshift is a tiny deterministic generator: the same bytes on every run
// and platform, unlike math/rand's unspecified streams across versions.
type xorshiftState struct{ s uint64 }

func xorshift(seed uint64) *xorshiftState { return &xorshiftState{s: seed} }

func (x *xorshiftState) next() uint64 {
	x.s ^= x.s << 13
	x.s ^= x.s >> 7
	x.s ^= x.s << 17
	return x.s
}

func manualWords() []string {
	return strings.Fields(`valve pump relay sensor cable filter gasket bearing rotor stator
		coolant pressure voltage current reading threshold calibrate inspect replace tighten
		record verify isolate purge drain vent seal align balance monitor log schedule
		north south east west upper lower inner outer primary secondary backup spare
		hourly daily weekly monthly quarterly annual routine emergency standby nominal
		the a each every before after during until while when then also only never always
		operator technician supervisor crew shift panel cabinet rack module unit bay
		check confirm report escalate document archive label measure compare adjust`)
}

// capitalize upper-cases the first byte of an ASCII word.
func capitalize(w string) string {
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}
