package dpe

import (
	"encoding/json"
	"fmt"
	"time"
)

// Severity of a Finding: a Violation breaks a MUST of dpe.md (or issue 3's
// conformance list); a Warning is a SHOULD or a suspicious value.
type Severity int

const (
	Violation Severity = iota
	Warning
)

func (s Severity) String() string {
	if s == Violation {
		return "violation"
	}
	return "warning"
}

// Finding is one conformance problem. Path is a JSON path into the source
// document ("$.pages[3].elements[7].category", positions as in the source
// arrays); Page is the index into Document.Pages and Element into that
// page's Elements, -1 when not applicable, so the UI can jump there.
type Finding struct {
	Path     string
	Rule     string
	Message  string
	Severity Severity
	Page     int
	Element  int
}

// Rules named by findings.
const (
	RuleFieldType       = "field-type"     // a named field has the wrong JSON type
	RulePageCount       = "page-count"     // page_count ≥ 1 and equal to len(pages)
	RulePageContent     = "page-content"   // each page has elements or uri
	RulePageIndex       = "page-index"     // page indexes present, unique, sequential from 0
	RuleDate            = "iso8601-date"   // dates are ISO 8601
	RuleKeywords        = "keywords-array" // keywords is an array of strings
	RuleUnknownCategory = "unknown-category"
	RuleMissingCategory = "category-missing"
	RuleElementID       = "element-id-unique"
	RuleElementCount    = "element-count-hint"
	RuleDocURI          = "doc-uri"
	RulePageDecode      = "page-decodes"
	RuleNotLoaded       = "page-not-loaded" // manifest page not fetched: its elements were not checked
)

// Validate reports how d conforms to dpe.md §DPE 内容标准格式 and issue 3's
// checks. It decodes inline pages that are not decoded yet on the fly
// (without keeping them), so it is O(document) and may be slow on huge
// documents. Manifest pages that were not loaded are reported once, as a
// warning, and not checked.
func Validate(d *Document) []Finding {
	lim := DefaultLimits()
	var out []Finding
	add := func(f Finding) { out = append(out, f) }
	doc := func(path, rule string, sev Severity, format string, a ...any) {
		add(Finding{Path: path, Rule: rule, Message: fmt.Sprintf(format, a...), Severity: sev, Page: -1, Element: -1})
	}
	for _, p := range d.problems {
		if p.Path == "$.keywords" {
			p.Rule = RuleKeywords
		}
		add(p)
	}

	switch {
	case !d.hasPageCount:
		if _, wrong := d.Extra["page_count"]; !wrong {
			doc("$.page_count", RulePageCount, Warning, "page_count is missing (recommended, ≥ 1)")
		}
	case d.PageCount < 1:
		doc("$.page_count", RulePageCount, Violation, "page_count is %d, want ≥ 1", d.PageCount)
	case d.PageCount != len(d.Pages):
		doc("$.page_count", RulePageCount, Violation, "page_count is %d but \"pages\" has %d", d.PageCount, len(d.Pages))
	}
	if len(d.Pages) == 0 {
		doc("$.pages", RulePageCount, Violation, "\"pages\" is empty, want at least one page")
	}
	if d.URI != "" {
		if _, _, err := ParseURILenient(d.URI); err != nil {
			doc("$.uri", RuleDocURI, Violation, "%v", err)
		}
	}
	checkDate := func(path, v string, page, elem int) {
		if v != "" && !isISO8601(v) {
			add(Finding{Path: path, Rule: RuleDate, Severity: Violation, Page: page, Element: elem,
				Message: fmt.Sprintf("%q is not an ISO 8601 date", v)})
		}
	}
	checkDate("$.last_modified", d.LastModified, -1, -1)
	if raw, ok := d.Extra["doc_metadata"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil {
			for _, k := range []string{"created_at", "last_modified"} {
				var v string
				if json.Unmarshal(m[k], &v) == nil {
					checkDate("$.doc_metadata."+k, v, -1, -1)
				}
			}
		}
	}

	// Page indexes: present, unique, sequential from 0 (dpe.md: "从 0 开始的页码索引").
	byIndex := map[int]int{} // index → source position of the first page using it
	outOfOrder := false
	for i, p := range d.Pages {
		path := fmt.Sprintf("$.pages[%d]", p.pos)
		if !p.hasIndex {
			if _, wrong := p.Extra["page_index"]; !wrong {
				add(Finding{Path: path, Rule: RulePageIndex, Severity: Violation, Page: i, Element: -1,
					Message: "page has no page_index (or kernel \"number\")"})
			}
		} else if first, dup := byIndex[p.Index]; dup {
			add(Finding{Path: path + ".page_index", Rule: RulePageIndex, Severity: Violation, Page: i, Element: -1,
				Message: fmt.Sprintf("page_index %d is also used by $.pages[%d]", p.Index, first)})
		} else {
			byIndex[p.Index] = p.pos
			if p.Index != i {
				add(Finding{Path: path + ".page_index", Rule: RulePageIndex, Severity: Violation, Page: i, Element: -1,
					Message: fmt.Sprintf("page_index %d where %d was expected (indexes are sequential from 0)", p.Index, i)})
			}
		}
		if p.pos != i {
			outOfOrder = true
		}
	}
	if outOfOrder {
		doc("$.pages", RulePageIndex, Warning, "pages are not in page_index order (shown sorted)")
	}

	seenIDs := map[string]string{} // element_id → path of first use
	unknown := map[string]int{}    // category → count
	firstUnknown := map[string]int{}
	notLoaded := 0
	firstNotLoaded := -1
	for i, p := range d.Pages {
		path := fmt.Sprintf("$.pages[%d]", p.pos)
		for _, f := range p.problems {
			f.Page = i
			add(f)
		}
		if !p.hasElements && p.URI == "" {
			add(Finding{Path: path, Rule: RulePageContent, Severity: Violation, Page: i, Element: -1,
				Message: "page has neither \"elements\" nor \"uri\""})
			continue
		}
		if raw, ok := p.Extra["keywords"]; ok {
			var kw []string
			if json.Unmarshal(raw, &kw) != nil {
				add(Finding{Path: path + ".keywords", Rule: RuleKeywords, Severity: Violation, Page: i, Element: -1,
					Message: "\"keywords\" is not an array of strings"})
			}
		}
		elems := p.Elements
		if !p.Decoded {
			if !p.hasElements {
				notLoaded++
				if firstNotLoaded < 0 {
					firstNotLoaded = i
				}
				continue
			}
			q, err := decodeInline(p, lim)
			if err != nil {
				add(Finding{Path: path + ".elements", Rule: RulePageDecode, Severity: Violation, Page: i, Element: -1,
					Message: err.Error()})
				continue
			}
			for _, f := range q.problems {
				f.Page = i
				add(f)
			}
			elems = q.Elements
		}
		if p.ElementCount >= 0 && p.hasElements && p.ElementCount != len(elems) {
			add(Finding{Path: path + ".element_count", Rule: RuleElementCount, Severity: Warning, Page: i, Element: -1,
				Message: fmt.Sprintf("element_count is %d but the page has %d elements", p.ElementCount, len(elems))})
		}
		for j, el := range elems {
			ep := fmt.Sprintf("%s.elements[%d]", path, j)
			switch {
			case el.Category == "":
				add(Finding{Path: ep + ".category", Rule: RuleMissingCategory, Severity: Warning, Page: i, Element: j,
					Message: "element has no category (shown as text)"})
			case !IsKnownCategory(el.Category):
				if unknown[el.Category] == 0 {
					firstUnknown[el.Category] = len(out)
					add(Finding{Path: ep + ".category", Rule: RuleUnknownCategory, Severity: Warning, Page: i, Element: j})
				}
				unknown[el.Category]++
			}
			if el.ID == "" {
				add(Finding{Path: ep, Rule: RuleElementID, Severity: Warning, Page: i, Element: j,
					Message: "element has no element_id"})
			} else if first, dup := seenIDs[el.ID]; dup {
				add(Finding{Path: ep + ".element_id", Rule: RuleElementID, Severity: Violation, Page: i, Element: j,
					Message: fmt.Sprintf("element_id %q is also used by %s", el.ID, first)})
			} else {
				seenIDs[el.ID] = ep
			}
			if raw, ok := el.Metadata["last_modified"]; ok {
				var v string
				if json.Unmarshal(raw, &v) == nil {
					checkDate(ep+".ele_metadata.last_modified", v, i, j)
				}
			}
		}
	}
	for c, n := range unknown {
		f := &out[firstUnknown[c]]
		f.Message = fmt.Sprintf("unknown category %q on %d element(s), first here (shown as text)", c, n)
	}
	if notLoaded > 0 {
		add(Finding{Path: fmt.Sprintf("$.pages[%d]", d.Pages[firstNotLoaded].pos), Rule: RuleNotLoaded, Severity: Warning,
			Page: firstNotLoaded, Element: -1,
			Message: fmt.Sprintf("%d manifest page(s) not loaded: their elements were not checked", notLoaded)})
	}
	return out
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
