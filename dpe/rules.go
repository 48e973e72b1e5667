package dpe

// Rule describes one conformance check: a stable id (never reused or
// renumbered, so --ignore lists and CI configs keep working), a short name
// (what Finding.Rule carries), its severity, what it checks, and the spec
// or seed section it comes from.
type Rule struct {
	ID       string
	Name     string
	Severity Severity
	What     string
	Source   string
}

// Rule names carried by Finding.Rule (Finding.ID carries the id). Names
// are kept stable like ids: callers and tests match on them.
const (
	RuleFieldType       = "field-type"
	RulePageCount       = "page-count"
	RulePageCountAbsent = "page-count-missing"
	RulePagesEmpty      = "pages-empty"
	RulePageContent     = "page-content"
	RulePageIndex       = "page-index"
	RulePageOrder       = "page-order"
	RuleDate            = "iso8601-date"
	RuleKeywords        = "keywords-array"
	RuleUnknownCategory = "unknown-category"
	RuleMissingCategory = "category-missing"
	RuleElementIDAbsent = "element-id-missing"
	RuleElementID       = "element-id-unique" // element_id unique within the document
	RuleElementCount    = "element-count-hint"
	RuleDocURI          = "doc-uri"
	RulePageDecode      = "page-decodes"
	RuleNotLoaded       = "page-not-loaded"
	RulePageLoad        = "page-load"
	RuleParentMissing   = "parent-id-target"
	RuleRelatedMissing  = "related-ids-target"
	RuleParentCycle     = "parent-cycle"
	RuleDepthType       = "category-depth-type"
	RuleTitleDepthJump  = "title-depth-jump"
	RuleListDepthJump   = "list-depth-jump"
	RuleContinuation    = "is-continuation-type"
	RuleCoordNoSystem   = "coordinates-system-missing"
	RuleCoordSystem     = "coordinates-system-unknown"
	RuleCoordBounds     = "coordinates-bounds"
	RuleCoordPoints     = "coordinates-points"
	RuleCoordSize       = "pointspace-size"
	RuleTableNoHTML     = "table-html-missing"
	RuleTableHTML       = "table-html-invalid"
	RuleHTMLCategory    = "html-category"
	RuleImageBase64     = "image-base64"
	RuleImageMime       = "image-mime"
	RuleImageNoData     = "image-no-data"
	RuleCheckBox        = "checkbox-checked"
	RuleCodeLanguage    = "code-language"
	RuleTextEmpty       = "text-empty"
	RuleTextInvalid     = "text-invalid"
	RuleLanguages       = "languages-iso639-3"
	RulePageBothCount   = "page-element-count"
	RuleManifestIndex   = "manifest-page-index"
	RuleResourcePages   = "resource-page-count"
	RuleDocRefResolved  = "doc-ref-resolved"
	RuleFileTypeCase    = "file-type-lowercase"
	RuleLastModified    = "last-modified-resource"
	RuleNoTextLayer     = "page-no-text-layer"
	// Rules on what the wire said about the document (rules_wire.go): the
	// get_dpe answer and the listing entry, through CheckOptions.
	RuleExpiresAt       = "expires-at-iso8601"
	RuleListingModified = "listing-last-modified-iso8601"
	RuleListingKeywords = "listing-keywords-strings"
	// The dpe1 identity rules are checked by package dpe/identity (which
	// imports dpe) and reach Check through CheckOptions.Extra.
	RuleDPE1SafeInteger = "dpe1-safe-integer"
	// RuleTruncated is the summary left when one rule fired more often
	// than a report keeps (MaxFindingsPerRule); not a conformance rule.
	RuleTruncated = "truncated"
)

// Sections cited by the rules.
const (
	srcDocJSON    = "dpe.md §DPE 内容标准格式 › Document JSON"
	srcHash       = "dpe-protocol spec/hash-contract-1.md (dpe1, final: 0.2.1 0808ede)"
	srcPage       = "dpe.md §DPE 内容标准格式 › Page 对象"
	srcElement    = "dpe.md §DPE 内容标准格式 › Element 对象"
	srcURI        = "dpe.md §dpe:// URI 规范 › 校验规则"
	srcResMeta    = "dpe.md §DPE Resource 元数据 › 校验规则; seed 000"
	srcLifecycle  = "dpe.md §DPE Resolver Hook › URI 生命周期与可用性"
	srcAccessMeta = "data-structures.md §A2CResource (_meta.expires_at)"
	srcPropDoc    = "proposal §3.1 Document 层; appendix A"
	srcUnion      = "proposal §3.3.1 判别联合体; appendix B"
	srcIDs        = "proposal §3.3.2 双 ID 系统"
	srcStruct     = "proposal §3.4 元数据体系 › 结构关系"
	srcCoords     = "proposal §3.4 › 空间位置; §4.6 坐标系; appendix A"
	srcVisual     = "proposal §3.4 › 视觉信息; appendix B"
	srcText       = "proposal §3.3 DocElement (text); §4.3 可清洗字段"
	srcLang       = "proposal §3.4 › 语义标记 (languages: ISO 639-3)"
)

// rules is the rule table, in id order. A function, not a package-level
// slice, so callers can never mutate the shared table.
func rules() []Rule {
	return []Rule{
		{"DPE-E001", RuleFieldType, Violation, "a named field has the wrong JSON type", srcDocJSON + "; " + srcPage + "; " + srcElement},
		{"DPE-E002", RulePageCount, Violation, "page_count is ≥ 1 and equals the number of pages present", srcDocJSON},
		{"DPE-E003", RulePageCountAbsent, Warning, "page_count is present (recommended)", srcDocJSON + "; " + srcResMeta},
		{"DPE-E004", RulePagesEmpty, Violation, "\"pages\" has at least one page", srcDocJSON},
		{"DPE-E005", RulePageContent, Violation, "each page has \"elements\" or a \"uri\"", srcPage},
		{"DPE-E006", RulePageIndex, Violation, "page_index is present, unique and sequential from 0", srcPage},
		{"DPE-E007", RulePageOrder, Warning, "pages are in page_index order", srcPage},
		{"DPE-E008", RuleDate, Violation, "dates (last_modified, created_at) are ISO 8601", srcDocJSON + "; " + srcResMeta},
		{"DPE-E009", RuleKeywords, Violation, "keywords is an array of strings", srcDocJSON + "; " + srcPropDoc},
		{"DPE-E010", RuleUnknownCategory, Warning, "category is one of the 19 standard (or v0.1) categories", srcUnion + "; dpe.md §元素类型"},
		{"DPE-E011", RuleMissingCategory, Warning, "every element has a category", srcUnion},
		{"DPE-E012", RuleElementIDAbsent, Warning, "every element has an element_id", srcIDs},
		{"DPE-E013", RuleElementID, Violation, "element_id is unique within the document", srcIDs},
		{"DPE-E014", RuleElementCount, Warning, "an inline page's element_count hint equals its number of elements", srcPage},
		{"DPE-E015", RuleDocURI, Violation, "the document's uri is a valid dpe:// URI", srcURI},
		{"DPE-E016", RulePageDecode, Violation, "an inline page's elements decode", srcPage + "; " + srcElement},
		{"DPE-E017", RuleNotLoaded, Warning, "manifest pages were fetched, so their elements could be checked", srcPage},
		{"DPE-E018", RulePageLoad, Violation, "a manifest page's uri can be fetched and holds a page object", srcPage + "; " + srcLifecycle},
		{"DPE-E019", RuleParentMissing, Violation, "parent_id names an element of the document", srcStruct + "; " + srcIDs},
		{"DPE-E020", RuleRelatedMissing, Violation, "every related_ids entry names an element of the document", srcStruct + "; " + srcIDs},
		{"DPE-E021", RuleParentCycle, Violation, "parent_id links form a tree (no cycle)", srcStruct},
		{"DPE-E022", RuleDepthType, Violation, "category_depth is a non-negative integer", srcStruct + "; appendix B"},
		{"DPE-E023", RuleTitleDepthJump, Warning, "a Title is at most one level deeper than the Title before it", srcStruct + "; appendix B (Title)"},
		{"DPE-E024", RuleListDepthJump, Warning, "a ListItem is at most one level deeper than the ListItem before it", srcStruct + "; appendix B (ListItem)"},
		{"DPE-E025", RuleContinuation, Violation, "is_continuation is a boolean", srcStruct},
		{"DPE-E026", RuleCoordNoSystem, Violation, "coordinates name their system", srcCoords},
		{"DPE-E027", RuleCoordSystem, Violation, "the coordinate system is PixelSpace, PointSpace or RelativeCoordinateSystem", srcCoords},
		{"DPE-E028", RuleCoordBounds, Violation, "points lie inside the system's width and height ([0,1] for RelativeCoordinateSystem)", srcCoords},
		{"DPE-E029", RuleCoordPoints, Violation, "coordinates have at least 2 [x, y] points", srcCoords},
		{"DPE-E030", RuleCoordSize, Warning, "a PointSpace system declares its width and height", srcCoords},
		{"DPE-E031", RuleTableNoHTML, Warning, "a Table has text_as_html", srcVisual + " (Table)"},
		{"DPE-E032", RuleTableHTML, Violation, "a Table's text_as_html parses to an HTML table with rows", srcVisual + " (Table)"},
		{"DPE-E033", RuleHTMLCategory, Warning, "text_as_html is only on Table, TableChunk or the generic Text (unclassified HTML)", srcVisual},
		{"DPE-E034", RuleImageBase64, Violation, "an Image's image_base64 decodes", srcVisual + " (Image)"},
		{"DPE-E035", RuleImageMime, Violation, "image_mime_type agrees with the image bytes", srcVisual + " (Image)"},
		{"DPE-E036", RuleImageNoData, Warning, "an Image has image_base64, image_path or image_url", srcVisual + " (Image)"},
		{"DPE-E037", RuleCheckBox, Violation, "a CheckBox has a boolean checked", srcUnion + " (CheckBox)"},
		{"DPE-E038", RuleCodeLanguage, Note, "a CodeSnippet names its language", srcUnion + " (CodeSnippet)"},
		{"DPE-E039", RuleTextEmpty, Warning, "a text category has non-blank text", srcText},
		{"DPE-E040", RuleTextInvalid, Violation, "text is valid UTF-8 without control characters", srcText + "; dpe.md §Element 对象"},
		{"DPE-E041", RuleLanguages, Warning, "languages are ISO 639-3 codes", srcLang},
		{"DPE-E042", RulePageBothCount, Violation, "a page with both elements and uri: element_count equals its elements", srcPage},
		{"DPE-E043", RuleManifestIndex, Violation, "a fetched manifest page has the page_index of the entry that points to it", srcPage},
		{"DPE-E044", RuleResourcePages, Warning, "page_count agrees with the resource's _meta.page_count", srcResMeta},
		{"DPE-E045", RuleDocRefResolved, Violation, "doc_ref and uri agree with the dpe:// URI that was resolved", srcDocJSON + "; " + srcURI},
		{"DPE-E046", RuleFileTypeCase, Warning, "file_type is lowercase", srcResMeta + " (rule 3)"},
		{"DPE-E047", RuleLastModified, Warning, "last_modified agrees with the resource's annotations.lastModified", srcResMeta + "; " + srcDocJSON},
		{"DPE-E049", RuleDPE1SafeInteger, Violation, "integers lie within ±(2^53−1)", srcHash + " §3.3; dpe-protocol spec/core.md §2.6 (4c25829)"},
		{"DPE-E050", RuleExpiresAt, Violation, "the get_dpe answer's _meta.expires_at is an ISO 8601 date-time", srcAccessMeta + "; " + srcLifecycle},
		{"DPE-E051", RuleListingModified, Violation, "the listing's annotations.lastModified (or _meta.last_modified) is an ISO 8601 date-time", srcResMeta},
		{"DPE-E052", RuleListingKeywords, Violation, "the listing's _meta.keywords is an array of strings", srcResMeta},
		{"DPE-E053", RuleNoTextLayer, Note, "a page whose metadata says no_text_layer (a scan) is named: nothing on it can be read or searched", srcPage + " (metadata)"},
	}
}

// Rules lists every conformance rule in id order (a fresh copy).
func Rules() []Rule { return rules() }

// truncatedRule is the rule of the summary finding Check leaves when one
// rule fired more than MaxFindingsPerRule times; it is not a conformance
// rule, so Rules does not list it.
func truncatedRule() Rule {
	return Rule{"DPE-E000", RuleTruncated, Note, "findings of one rule beyond MaxFindingsPerRule are counted, not listed", "dpe-tui report bound"}
}

// RuleByID returns the rule with id or name (case-insensitive), if there
// is one.
func RuleByID(id string) (Rule, bool) {
	for _, r := range append(rules(), truncatedRule()) {
		if equalFoldASCII(r.ID, id) || equalFoldASCII(r.Name, id) {
			return r, true
		}
	}
	return Rule{}, false
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// RuleInfo is the rule a finding names (zero Rule when unknown), for the
// detail view: what it checks and the section it comes from.
func (f Finding) RuleInfo() Rule {
	if r, ok := RuleByID(f.ID); ok {
		return r
	}
	r, _ := RuleByID(f.Rule)
	return r
}
