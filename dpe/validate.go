package dpe

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Severity of a Finding: a Violation breaks a MUST of dpe.md or the element
// model of the standardization proposal; a Warning is a SHOULD or a
// suspicious value; a Note is advice that costs nothing to ignore.
type Severity int

const (
	Violation Severity = iota
	Warning
	Note
)

func (s Severity) String() string {
	switch s {
	case Violation:
		return "violation"
	case Warning:
		return "warning"
	}
	return "note"
}

// Finding is one conformance problem. Path is a JSON path into the source
// document ("$.pages[3].elements[7].category", positions as in the source
// arrays); Page is the index into Document.Pages and Element into that
// page's Elements, -1 when not applicable, so the UI can jump there.
// Rule is the rule's name and ID its stable id (RuleInfo describes it:
// what it checks, the section it comes from). Value is the offending value
// as found (raw JSON or text), at most MaxValueBytes with a truncation
// marker; like Message it is untrusted and must be sanitized to be shown.
type Finding struct {
	Path      string
	Rule      string
	ID        string // "DPE-E013"
	Message   string
	Severity  Severity
	Page      int
	Element   int
	PageIndex int    // page_index of Page; -1 when Page is -1
	ElementID string // element_id of Element, "" when none
	Value     string
}

// MaxValueBytes bounds Finding.Value; MaxFindingsPerRule bounds how many
// findings of one rule a report lists (the rest are counted in one
// RuleTruncated note), so a hostile document cannot make a report huge.
const (
	MaxValueBytes      = 512
	MaxFindingsPerRule = 200
)

// CheckOptions tune Check. The zero value checks the document alone.
type CheckOptions struct {
	// ResolvedURI is the dpe:// URI the document was resolved from ("" when
	// it was opened from a file or URL): doc_ref and uri must agree with it.
	ResolvedURI string
	// Resource carries what the resource listing said, when known.
	Resource *ResourceHints
	// Answer is the get_dpe answer (GetDPERet) exactly as received, when
	// the document was resolved from a dpe:// URI: its _meta is checked
	// (rules_wire.go). Findings on it have paths starting "get_dpe:$".
	Answer []byte
	// Listing is the document's entry of the resource listing (an MCP
	// Resource as received), when known: its annotations and _meta are
	// checked. Findings on it have paths starting "listing:$".
	Listing []byte
	// Ignore silences rules by id (case-insensitive).
	Ignore []string
	// Strict reports warnings as violations (notes stay notes).
	Strict bool
	// Workers bounds how many pages are checked at once (0: GOMAXPROCS).
	Workers int
	// Limits for decoding pages on the fly (zero: defaults).
	Limits Limits
	// Loaded are findings made while loading the document (the
	// RulePageLoad findings of LoadManifestPages): they are ignored,
	// made strict, ordered and capped with the rest.
	Loaded []Finding
	// Extra are findings of checks that live outside this package (the
	// dpe1 identity rules of dpe/identity, which imports dpe): they are
	// ignored, made strict, ordered and capped with the rest.
	Extra []Finding
}

// ResourceHints are the resource's declarations (dpe.md §DPE Resource 元数据).
type ResourceHints struct {
	PageCount    int    // _meta.page_count; 0 when absent
	LastModified string // annotations.lastModified; "" when absent
}

// Validate is Check with no options.
func Validate(d *Document) []Finding { return Check(d, CheckOptions{}) }

// Check reports how d conforms to dpe.md §DPE 内容标准格式 and the element
// model of the standardization proposal (§3.3–3.4, appendix B); Rules
// lists what it checks. Inline pages not decoded yet are decoded on the fly
// and not kept, several at a time, so Check costs about one full decode
// spread over the CPUs. Manifest pages that were not loaded are reported
// once (RuleNotLoaded) and not checked. Findings come document first, then
// in page and element order.
func Check(d *Document, opt CheckOptions) []Finding {
	c := &checker{d: d, opt: opt, lim: opt.Limits.withDefaults()}
	c.document()
	c.pages()
	c.out = append(c.out, opt.Loaded...)
	c.out = append(c.out, opt.Extra...)
	return c.finish()
}

type checker struct {
	d   *Document
	opt CheckOptions
	lim Limits
	out []Finding
	// extra counts findings past the cap that are not in out at all (out
	// has a placeholder before them), by rule.
	extra map[string]int
}

func (c *checker) add(f Finding) { c.out = append(c.out, f) }

func (c *checker) doc(path, rule string, sev Severity, value, format string, a ...any) {
	c.add(Finding{Path: path, Rule: rule, Message: fmt.Sprintf(format, a...), Severity: sev, Page: -1, Element: -1, Value: value})
}

func (c *checker) document() {
	d := c.d
	for _, p := range d.problems {
		if p.Path == "$.keywords" {
			p.Rule = RuleKeywords
		}
		c.add(p)
	}
	switch {
	case !d.hasPageCount:
		if _, wrong := d.Extra["page_count"]; !wrong {
			c.doc("$.page_count", RulePageCountAbsent, Warning, "", "page_count is missing (recommended, ≥ 1)")
		}
	case d.PageCount < 1:
		c.doc("$.page_count", RulePageCount, Violation, fmt.Sprint(d.PageCount), "page_count is %d, want ≥ 1", d.PageCount)
	case d.PageCount != len(d.Pages) && len(d.Pages) > 0: // no pages: RulePagesEmpty says it
		c.doc("$.page_count", RulePageCount, Violation, fmt.Sprint(d.PageCount), "page_count is %d but \"pages\" has %d", d.PageCount, len(d.Pages))
	}
	if len(d.Pages) == 0 {
		c.doc("$.pages", RulePagesEmpty, Violation, "", "\"pages\" is empty, want at least one page")
	}
	if d.URI != "" {
		if _, _, err := ParseURILenient(d.URI); err != nil {
			c.doc("$.uri", RuleDocURI, Violation, d.URI, "%v", err)
		}
	}
	c.checkDate("$.last_modified", d.LastModified, -1, -1)
	if raw, ok := d.Extra["doc_metadata"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			for _, k := range []string{"created_at", "last_modified"} {
				var v string
				if json.Unmarshal(m[k], &v) == nil {
					c.checkDate("$.doc_metadata."+k, v, -1, -1)
				}
			}
		}
	}
	if d.FileType != "" && d.FileType != strings.ToLower(d.FileType) {
		c.doc("$.file_type", RuleFileTypeCase, Warning, d.FileType, "file_type %q is not lowercase (want %q)", d.FileType, strings.ToLower(d.FileType))
	}
	c.resolved()
	c.resource()
	c.wire()
	c.pageIndexes()
}

func (c *checker) checkDate(path, v string, page, elem int) {
	if v != "" && !isISO8601(v) {
		c.add(Finding{Path: path, Rule: RuleDate, Severity: Violation, Page: page, Element: elem, Value: v,
			Message: fmt.Sprintf("%q is not an ISO 8601 date", v)})
	}
}

// resolved: the document names the resource it was resolved from (dpe.md
// §Document JSON: doc_ref and uri are the resource's).
func (c *checker) resolved() {
	if c.opt.ResolvedURI == "" {
		return
	}
	want, err := ParseURI(c.opt.ResolvedURI)
	if err != nil {
		return
	}
	d := c.d
	if d.URI != "" {
		if got, _, err := ParseURILenient(d.URI); err == nil && !got.Equal(want) {
			c.doc("$.uri", RuleDocRefResolved, Violation, d.URI, "uri %q is not the resolved %q", d.URI, want.String())
		}
	}
	if d.DocRef != "" && d.DocRef != want.DocRef() {
		c.doc("$.doc_ref", RuleDocRefResolved, Violation, d.DocRef, "doc_ref %q is not the resolved URI's %q", d.DocRef, want.DocRef())
	}
}

func (c *checker) resource() {
	r := c.opt.Resource
	if r == nil {
		return
	}
	d := c.d
	if r.PageCount > 0 {
		n, what := d.PageCount, "page_count"
		if !d.hasPageCount {
			n, what = len(d.Pages), "the document's number of pages"
		}
		if n != r.PageCount {
			c.doc("$.page_count", RuleResourcePages, Warning, fmt.Sprint(n), "%s is %d but the resource's _meta.page_count is %d", what, n, r.PageCount)
		}
	}
	if r.LastModified != "" && d.LastModified != "" && !sameInstant(d.LastModified, r.LastModified) {
		c.doc("$.last_modified", RuleLastModified, Warning, d.LastModified, "last_modified %q disagrees with the resource's annotations.lastModified %q", d.LastModified, r.LastModified)
	}
}

// sameInstant compares two ISO 8601 values as instants when both parse
// with a zone, else as strings.
func sameInstant(a, b string) bool {
	ta, ea := time.Parse(time.RFC3339Nano, a)
	tb, eb := time.Parse(time.RFC3339Nano, b)
	if ea == nil && eb == nil {
		return ta.Equal(tb)
	}
	return a == b
}

// pageIndexes: present, unique, sequential from 0 (dpe.md: "从 0 开始的页码索引").
func (c *checker) pageIndexes() {
	byIndex := map[int]int{} // index → source position of the first page using it
	outOfOrder := false
	for i, p := range c.d.Pages {
		path := fmt.Sprintf("$.pages[%d]", p.pos)
		if !p.hasIndex {
			if _, wrong := p.Extra["page_index"]; !wrong {
				c.add(Finding{Path: path, Rule: RulePageIndex, Severity: Violation, Page: i, Element: -1,
					Message: "page has no page_index (or kernel \"number\")"})
			}
		} else if first, dup := byIndex[p.Index]; dup {
			c.add(Finding{Path: path + ".page_index", Rule: RulePageIndex, Severity: Violation, Page: i, Element: -1, Value: fmt.Sprint(p.Index),
				Message: fmt.Sprintf("page_index %d is also used by $.pages[%d]", p.Index, first)})
		} else {
			byIndex[p.Index] = p.pos
			if p.Index != i {
				c.add(Finding{Path: path + ".page_index", Rule: RulePageIndex, Severity: Violation, Page: i, Element: -1, Value: fmt.Sprint(p.Index),
					Message: fmt.Sprintf("page_index %d where %d was expected (indexes are sequential from 0)", p.Index, i)})
			}
		}
		if p.pos != i {
			outOfOrder = true
		}
	}
	if outOfOrder {
		c.doc("$.pages", RulePageOrder, Warning, "", "pages are not in page_index order (shown sorted)")
	}
}

// pages checks every page: the per-page work (decoding and the rules that
// need only one element) runs on several pages at once; what spans pages
// (ids, parent links, depth sequences) runs after, in reading order.
func (c *checker) pages() {
	d := c.d
	res := make([]pageResult, len(d.Pages))
	workers := c.opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(1, len(d.Pages)))
	ignore := c.ignored()
	// Pages are claimed in order, so the pages before the first one not
	// done yet are a prefix every later page follows in the report. Once
	// that prefix holds MaxFindingsPerRule findings of a rule, later
	// findings of it are certainly not listed: checkPage only counts them.
	var (
		next, prefix int
		mu           sync.Mutex
		wg           sync.WaitGroup
		done         = make([]bool, len(d.Pages))
		count        = map[string]int{} // built findings by rule, on the prefix
		capped       = ruleSet{}        // replaced, never written once shared
	)
	finished := func(i int) {
		done[i] = true
		var grown ruleSet
		for ; prefix < len(done) && done[prefix]; prefix++ {
			for _, f := range res[prefix].findings {
				if f.Path == "" { // a placeholder: not listed
					continue
				}
				count[f.Rule]++
				if count[f.Rule] >= MaxFindingsPerRule && !capped[f.Rule] && !grown[f.Rule] {
					if grown == nil {
						grown = ruleSet{}
					}
					grown[f.Rule] = true
				}
			}
		}
		if grown != nil {
			next := make(ruleSet, len(capped)+len(grown))
			for r := range capped {
				next[r] = true
			}
			for r := range grown {
				next[r] = true
			}
			capped = next
		}
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				skip := capped
				mu.Unlock()
				if i >= len(d.Pages) {
					return
				}
				res[i] = checkPage(d.Pages[i], i, c.lim, skip, ignore)
				mu.Lock()
				finished(i)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()

	failed := map[int]bool{} // pages whose load failed: RulePageLoad says it
	for _, f := range c.opt.Loaded {
		if f.Rule == RulePageLoad {
			failed[f.Page] = true
		}
	}
	notLoaded, firstNotLoaded := 0, -1
	for i := range res {
		c.out = append(c.out, res[i].findings...)
		for r, n := range res[i].extra {
			if c.extra == nil {
				c.extra = map[string]int{}
			}
			c.extra[r] += n
		}
		if res[i].notLoaded && !failed[i] {
			notLoaded++
			if firstNotLoaded < 0 {
				firstNotLoaded = i
			}
		}
	}
	c.links(res)
	if notLoaded > 0 {
		c.add(Finding{Path: fmt.Sprintf("$.pages[%d]", d.Pages[firstNotLoaded].pos), Rule: RuleNotLoaded, Severity: Warning,
			Page: firstNotLoaded, Element: -1,
			Message: fmt.Sprintf("%d manifest page(s) not loaded: their elements were not checked", notLoaded)})
	}
}

// ignored is the set of rule names CheckOptions.Ignore silences.
func (c *checker) ignored() ruleSet {
	ignore := ruleSet{}
	for _, id := range c.opt.Ignore {
		if r, ok := RuleByID(strings.TrimSpace(id)); ok {
			ignore[r.Name] = true
		}
	}
	return ignore
}

// finish applies Ignore and Strict, orders the findings, fills the places
// and caps each rule at MaxFindingsPerRule.
func (c *checker) finish() []Finding {
	ids := map[string]string{} // name → id
	for _, r := range rules() {
		ids[r.Name] = r.ID
	}
	ignore := map[string]bool{}
	for name := range c.ignored() {
		ignore[ids[name]] = true
	}
	kept := c.out[:0]
	for _, f := range c.out {
		f.ID = ids[f.Rule]
		if ignore[f.ID] {
			continue
		}
		if c.opt.Strict && f.Severity == Warning {
			f.Severity = Violation
		}
		kept = append(kept, f)
	}
	less := func(a, b int) bool {
		if kept[a].Page != kept[b].Page {
			return kept[a].Page < kept[b].Page
		}
		return kept[a].Element < kept[b].Element
	}
	if !sort.SliceIsSorted(kept, less) {
		sort.SliceStable(kept, less)
	}
	count := map[string]int{} // by rule name
	var order []string
	out := kept[:0]
	for _, f := range kept {
		count[f.Rule]++
		if count[f.Rule] > MaxFindingsPerRule {
			if count[f.Rule] == MaxFindingsPerRule+1 {
				order = append(order, f.Rule)
			}
			continue
		}
		f.PageIndex = -1
		if f.Page >= 0 && f.Page < len(c.d.Pages) {
			p := c.d.Pages[f.Page]
			f.PageIndex = p.Index
			if f.ElementID == "" && f.Element >= 0 && p.Decoded && f.Element < len(p.Elements) {
				f.ElementID = p.Elements[f.Element].ID
			}
		}
		f.Value = truncValue(f.Value)
		out = append(out, f)
	}
	for r, n := range c.extra {
		count[r] += n
	}
	for _, r := range order {
		out = append(out, Finding{Path: "$", Rule: RuleTruncated, ID: truncatedRule().ID, Severity: Note, Page: -1, Element: -1, PageIndex: -1, Value: ids[r],
			Message: fmt.Sprintf("%d more %s %s finding(s) not listed (the first %d are)", count[r]-MaxFindingsPerRule, ids[r], r, MaxFindingsPerRule)})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// truncValue bounds v to MaxValueBytes at a rune boundary, with a marker
// saying how much was cut.
func truncValue(v string) string {
	if len(v) <= MaxValueBytes {
		return v
	}
	cut := MaxValueBytes
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut] + fmt.Sprintf("…[+%d bytes]", len(v)-cut)
}

// isISO8601 accepts the ISO 8601 profiles documents use in practice: a
// date, a date-time with or without zone, fractional seconds, and the
// basic (no separators) forms.
func isISO8601(s string) bool {
	for _, layout := range []string{
		time.RFC3339Nano,
		"2006-01-02T15:04:05.999999999",
		"2006-01-02T15:04",
		"2006-01-02T15:04Z07:00",
		"2006-01-02T15:04:05Z0700",
		"2006-01-02T15:04:05.999999999Z0700",
		"2006-01-02",
		"20060102T150405Z0700",
		"20060102T150405",
		"20060102",
		"2006-01",
	} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}
