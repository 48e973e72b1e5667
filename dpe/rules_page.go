package dpe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pageResult is what checking one page gives: its own findings and, per
// element, what the cross-page rules need.
type pageResult struct {
	findings  []Finding
	elems     []elemInfo
	notLoaded bool
	extra     map[string]int // findings past the cap not even kept as a placeholder, by rule
}

// elemInfo is one element as the cross-page rules see it.
type elemInfo struct {
	id, parent string
	related    []string
	category   string // as written
	norm       string // normalized ("" when unknown)
	depth      int    // category_depth; -1 when absent or invalid
	page, pos  int    // index into Document.Pages; source position of the page
	elem       int
	hasParent  bool
}

func (e *elemInfo) path() string { return fmt.Sprintf("$.pages[%d].elements[%d]", e.pos, e.elem) }

// ruleSet is a set of rule names.
type ruleSet map[string]bool

// checkPage runs the rules that need one page only. It reads p and never
// writes it, so pages are checked concurrently. An undecoded inline page
// is scanned, not decoded: its elements are read once into an elemView
// each, and nothing is built for an element that draws no finding.
// Findings of a rule in skip are certainly past the per-rule cap (earlier
// pages already have MaxFindingsPerRule of them): only a placeholder with
// the rule and place is kept, so finish counts them without their
// message ever being formatted; rules in ignore are not reported at all.
func checkPage(p *Page, i int, lim Limits, skip, ignore ruleSet) pageResult {
	var r pageResult
	path := fmt.Sprintf("$.pages[%d]", p.pos)
	add := func(f Finding) {
		f.Page = i
		r.findings = append(r.findings, f)
	}
	for _, f := range p.problems {
		add(f)
	}
	if !p.hasElements && p.URI == "" && !p.Decoded {
		add(Finding{Path: path, Rule: RulePageContent, Severity: Violation, Element: -1,
			Message: "page has neither \"elements\" nor \"uri\""})
		return r
	}
	if raw, ok := p.Extra["keywords"]; ok {
		var kw []string
		if json.Unmarshal(raw, &kw) != nil {
			add(Finding{Path: path + ".keywords", Rule: RuleKeywords, Severity: Violation, Element: -1, Value: string(raw),
				Message: "\"keywords\" is not an array of strings"})
		}
	}
	if p.NoTextLayer() {
		add(Finding{Path: path + ".metadata.no_text_layer", Rule: RuleNoTextLayer, Severity: Note, Element: -1,
			Message: fmt.Sprintf("page %d has no text layer (a scanned page): only its images are shown, and nothing on it can be searched", i+1)})
	}
	if !p.Decoded && !p.hasElements {
		r.notLoaded = true
		return r
	}

	pc := &pageCheck{pos: p.pos, skip: skip, ignore: ignore, add: add}
	var idBuf []byte
	var idEnd []int
	each := func(j int, v *elemView) error {
		r.elems = append(r.elems, elemInfo{category: v.category, norm: normCategory(v.category), depth: -1, page: i, pos: p.pos, elem: j})
		idBuf = v.appendID(idBuf)
		idEnd = append(idEnd, len(idBuf))
		ec := elemCheck{v: v, info: &r.elems[len(r.elems)-1], j: j, pc: pc}
		ec.run()
		return nil
	}
	n := 0
	if p.Decoded {
		var v elemView
		for j, el := range p.Elements {
			v.fromElement(el)
			_ = each(j, &v)
		}
		n = len(p.Elements)
	} else {
		mark := len(r.findings)
		r.elems = make([]elemInfo, 0, p.nElements)
		problem := func(j int, key []byte, kind, want string) {
			if ignore[RuleFieldType] {
				return
			}
			if skip[RuleFieldType] {
				pc.placeholder(RuleFieldType, Violation, j)
				return
			}
			add(Finding{Path: fmt.Sprintf("%s.elements[%d].%s", path, j, key), Rule: RuleFieldType, Severity: Violation, Element: j,
				Message: fmt.Sprintf("%q is %s, want %s", key, kind, want)})
		}
		err := scanPage(p, lim, each, problem)
		if err == errRescan {
			// A shape scanPage does not mirror: decode the page instead.
			r.findings, r.elems, idBuf, idEnd, pc.extra = r.findings[:mark], nil, nil, nil, nil
			var q *Page
			if q, err = decodeInline(p, lim); err == nil {
				for _, f := range q.problems {
					add(f)
				}
				var v elemView
				for j, el := range q.Elements {
					v.fromElement(el)
					_ = each(j, &v)
				}
			}
		}
		if err != nil {
			r.findings, r.elems, pc.extra = r.findings[:mark], nil, nil
			add(Finding{Path: path + ".elements", Rule: RulePageDecode, Severity: Violation, Element: -1, Message: err.Error()})
			return r
		}
		n = len(r.elems)
	}
	r.extra = pc.extra
	ids, from := string(idBuf), 0
	for k := range r.elems {
		r.elems[k].id = ids[from:idEnd[k]]
		from = idEnd[k]
	}
	if p.ElementCount >= 0 && p.hasElements && p.ElementCount != n {
		rule, sev := RuleElementCount, Warning
		if p.URI != "" {
			// Inline elements and a uri: readers that follow the uri and
			// readers that do not would disagree on what the page holds.
			rule, sev = RulePageBothCount, Violation
		}
		add(Finding{Path: path + ".element_count", Rule: rule, Severity: sev, Element: -1, Value: strconv.Itoa(p.ElementCount),
			Message: fmt.Sprintf("element_count is %d but the page has %d elements", p.ElementCount, n)})
	}
	return r
}

// pageCheck is what the element checks of one page share.
type pageCheck struct {
	pos          int // source position of the page
	skip, ignore ruleSet
	add          func(Finding)
	extra        map[string]int // findings past the cap beyond the placeholder, by rule
	langsOK      []byte         // a languages value that drew no finding
}

// elemCheck runs the one-element rules on one element.
type elemCheck struct {
	v    *elemView
	info *elemInfo
	j    int // index of the element in its page
	pc   *pageCheck
}

// skipped reports whether a finding of rule need not be built (ignored,
// or past the cap: then a placeholder is recorded in its place).
func (e *elemCheck) skipped(rule string, sev Severity) bool {
	if e.pc.ignore[rule] {
		return true
	}
	if e.pc.skip[rule] {
		e.pc.placeholder(rule, sev, e.j)
		return true
	}
	return false
}

// placeholder stands for a finding past the cap: the first one of a rule
// on the page is kept (with no path or message) so finish sees where the
// rule overflowed; later ones are only counted.
func (pc *pageCheck) placeholder(rule string, sev Severity, elem int) {
	if n, ok := pc.extra[rule]; ok {
		pc.extra[rule] = n + 1
		return
	}
	if pc.extra == nil {
		pc.extra = map[string]int{}
	}
	pc.extra[rule] = 0
	pc.add(Finding{Rule: rule, Severity: sev, Element: elem})
}

func (e *elemCheck) report(sub, rule string, sev Severity, value string, format string, a ...any) {
	if e.skipped(rule, sev) {
		return
	}
	p := fmt.Sprintf("$.pages[%d].elements[%d]", e.pc.pos, e.j)
	if sub != "" {
		p += "." + sub
	}
	e.pc.add(Finding{Path: p, Rule: rule, Severity: sev, Value: value, Message: fmt.Sprintf(format, a...),
		Element: e.j, ElementID: e.v.idString()})
}

// meta is ele_metadata[slot] when present and not null.
func (e *elemCheck) meta(slot int) (json.RawMessage, bool) {
	raw := e.v.meta[slot]
	if raw == nil || string(raw) == "null" {
		return nil, false
	}
	return raw, true
}

func (e *elemCheck) run() {
	v := e.v
	if !v.hasID() {
		e.report("", RuleElementIDAbsent, Warning, "", "element has no element_id")
	}
	if raw, ok := e.meta(mLastModified); ok {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" && !isISO8601(s) {
			e.report("ele_metadata.last_modified", RuleDate, Violation, s, "%q is not an ISO 8601 date", s)
		}
	}
	e.structure()
	if raw, ok := e.meta(mCoordinates); ok {
		e.coordinates(raw)
	}
	e.category()
	e.text()
	if raw, ok := e.meta(mLanguages); ok {
		e.languages(raw)
	}
}

// structure: parent_id, related_ids, category_depth, is_continuation
// (proposal §3.4 结构关系).
func (e *elemCheck) structure() {
	if raw, ok := e.meta(mParentID); ok {
		if id, ok := jsonID(raw); ok {
			e.info.parent, e.info.hasParent = id, true
		} else {
			e.report("ele_metadata.parent_id", RuleFieldType, Violation, string(raw), "parent_id is %s, want an element_id string", jsonKind(raw))
		}
	}
	if raw, ok := e.meta(mRelatedIDs); ok {
		var ids []json.RawMessage
		if json.Unmarshal(raw, &ids) != nil {
			e.report("ele_metadata.related_ids", RuleFieldType, Violation, string(raw), "related_ids is %s, want an array of element_id strings", jsonKind(raw))
		} else {
			for k, x := range ids {
				id, ok := jsonID(x)
				if !ok {
					e.report(fmt.Sprintf("ele_metadata.related_ids[%d]", k), RuleFieldType, Violation, string(x), "related_ids[%d] is %s, want an element_id string", k, jsonKind(x))
					continue
				}
				e.info.related = append(e.info.related, id)
			}
		}
	}
	if raw, ok := e.meta(mCategoryDepth); ok {
		n, err := strconv.Atoi(string(raw))
		if err != nil || n < 0 {
			e.report("ele_metadata.category_depth", RuleDepthType, Violation, string(raw), "category_depth is %s, want a non-negative integer", describe(raw))
		} else {
			e.info.depth = n
		}
	}
	if raw, ok := e.meta(mIsContinuation); ok && string(raw) != "true" && string(raw) != "false" {
		e.report("ele_metadata.is_continuation", RuleContinuation, Violation, string(raw), "is_continuation is %s, want true or false", describe(raw))
	}
}

// category: what appendix B says each category carries.
func (e *elemCheck) category() {
	html, hasHTML := e.meta(mTextAsHTML)
	switch e.info.norm {
	case CategoryTable:
		if !hasHTML {
			e.report("ele_metadata", RuleTableNoHTML, Warning, "", "Table has no ele_metadata.text_as_html (its grid cannot be rebuilt)")
		} else {
			var s string
			if json.Unmarshal(html, &s) != nil {
				e.report("ele_metadata.text_as_html", RuleFieldType, Violation, string(html), "text_as_html is %s, want a string", jsonKind(html))
			} else if why := tableHTMLProblem(s); why != "" {
				e.report("ele_metadata.text_as_html", RuleTableHTML, Violation, s, "text_as_html %s", why)
			}
		}
	case CategoryTableChunk, CategoryText:
		// The generic Text element keeps unclassified HTML blocks as they
		// were; HTML is its content there, not a second rendering.
	default:
		if hasHTML {
			e.report("ele_metadata.text_as_html", RuleHTMLCategory, Warning, string(html), "text_as_html on a %s element (only Table, TableChunk and the generic Text use it)", e.v.category)
		}
	}
	switch e.info.norm {
	case CategoryImage:
		e.image()
	case CategoryCheckBox:
		raw, ok := e.meta(mChecked)
		where := "ele_metadata.checked"
		if !ok {
			raw, ok = topLevel(e.v.raw, "checked")
			where = "checked"
		}
		switch {
		case !ok:
			e.report("", RuleCheckBox, Violation, "", "CheckBox has no checked (ele_metadata.checked or checked), want true or false")
		case string(raw) != "true" && string(raw) != "false":
			e.report(where, RuleCheckBox, Violation, string(raw), "checked is %s, want true or false", describe(raw))
		}
	case CategoryCodeSnippet:
		for _, k := range []int{mLanguage, mCodeLanguage, mProgrammingLanguage} {
			if raw, ok := e.meta(k); ok && string(raw) != `""` {
				return
			}
		}
		e.report("ele_metadata", RuleCodeLanguage, Note, "", "CodeSnippet names no language (ele_metadata.language): it is shown without highlighting")
	}
}

// IsTextCategory reports whether category c (any spelling) carries its
// content in text, so that an element of it with blank text breaks the
// text-empty rule; a writer leaves such an element out.
func IsTextCategory(c string) bool { return isTextCategory(normCategory(c)) }

// textCategories carry their content in text, so a blank text is lost
// content (the others carry it in metadata: image data, table HTML,
// checked).
func isTextCategory(norm string) bool {
	switch norm {
	case CategoryText, CategoryTitle, CategoryNarrativeText, CategoryListItem, CategoryAddress,
		CategoryEmailAddress, CategoryCompositeElement, CategoryCodeSnippet, CategoryFigureCaption,
		CategoryPageNumber, CategoryFormula, CategoryHeader, CategoryFooter:
		return true
	}
	return false
}

func (e *elemCheck) text() {
	v := e.v
	blankMatters := isTextCategory(e.info.norm)
	if v.textScanned && !v.hasText {
		if v.textClear && (v.textNonBlank || !blankMatters) {
			return
		}
	} else if v.textRaw != nil && !v.hasText {
		if textClear(v.textRaw[1:len(v.textRaw)-1], true, blankMatters) {
			return
		}
	} else if textClear(v.getText(), false, blankMatters) {
		return
	}
	// Something to look at: the exact rules, on the decoded text.
	t := v.getText()
	if isTextCategory(e.info.norm) && strings.TrimSpace(t) == "" {
		e.report("text", RuleTextEmpty, Warning, t, "%s element has %s text", e.v.category, map[bool]string{true: "no", false: "whitespace-only"}[t == ""])
	}
	if strings.ContainsRune(t, utf8.RuneError) && !utf8.Valid(v.raw) {
		e.report("text", RuleTextInvalid, Violation, t, "text is not valid UTF-8")
		return
	}
	for k, r := range t {
		if (r < 0x20 && r != '\n' && r != '\t' && r != '\r') || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			e.report("text", RuleTextInvalid, Violation, t, "text holds control character U+%04X at byte %d", r, k)
			return
		}
	}
}

func (e *elemCheck) languages(raw json.RawMessage) {
	if bytes.Equal(raw, e.pc.langsOK) {
		return // most documents repeat one languages value throughout
	}
	found := false
	defer func() {
		if !found {
			e.pc.langsOK = raw
		}
	}()
	langs, ok := stringArray(raw)
	if !ok {
		found = true
		e.report("ele_metadata.languages", RuleFieldType, Violation, string(raw), "languages is %s, want an array of ISO 639-3 codes", jsonKind(raw))
		return
	}
	for k, l := range langs {
		if !IsISO6393(l) {
			found = true
			e.report(fmt.Sprintf("ele_metadata.languages[%d]", k), RuleLanguages, Warning, l, "%q is not an ISO 639-3 language code", l)
		}
	}
}

// jsonID reads an element_id reference: a string, or a number kept as
// spelled (kernel ids may be numbers, as Decode keeps them).
func jsonID(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	if c := raw[0]; c == '-' || (c >= '0' && c <= '9') {
		return string(raw), true
	}
	return "", false
}

func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// describe names a value's kind and, for short scalars, the value itself.
func describe(raw json.RawMessage) string {
	k := jsonKind(raw)
	if (k == "a string" || k == "a number" || k == "a boolean") && len(raw) <= 40 {
		return k + " " + string(raw)
	}
	return k
}

// topLevel returns an element's top-level field (fields the Element model
// does not keep).
func topLevel(raw json.RawMessage, key string) (json.RawMessage, bool) {
	if !bytes.Contains(raw, []byte(`"`+key+`"`)) {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	v, ok := m[key]
	if !ok || string(v) == "null" {
		return nil, false
	}
	return v, true
}

// stringArray reads a JSON array of strings with the package's scanner
// (languages is on every element of many documents: a hot path).
func stringArray(raw json.RawMessage) ([]string, bool) {
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	sc := &jscan{data: raw, maxDepth: DefaultMaxDepth}
	var out []string
	ok := true
	_, err := sc.array(0, 1, func(_, v int) (int, error) {
		end, err := sc.value(v, 1)
		if err != nil {
			return 0, err
		}
		if raw[v] != '"' {
			ok = false
		} else {
			out = append(out, decodeString(raw[v:end]))
		}
		return end, nil
	})
	return out, err == nil && ok
}
