package identity

import (
	"encoding/json"
	"strconv"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// RuleSafeInteger is the rule of the findings Check returns.
const RuleSafeInteger = dpe.RuleDPE1SafeInteger

// Check reports integer literals anywhere in a document JSON beyond
// ±(2^53−1) (core §2.6) as conformance findings with JSON paths. It reads
// only body, so it works before any page is decoded; manifest pages
// fetched separately are not seen. (Pages have no number in DPE v1, so
// there is no page-number rule: a v0.2 page_index is dpe's own rule.)
func Check(body []byte) []dpe.Finding {
	dec := json.NewDecoder(bytesReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	var out []dpe.Finding
	scanIntegers(v, "$", 0, &out)
	return out
}

// maxIntegerFindings bounds the findings of one document.
const maxIntegerFindings = 100

func scanIntegers(v any, path string, depth int, out *[]dpe.Finding) {
	if depth > 2*maxDepth || len(*out) >= maxIntegerFindings {
		return
	}
	switch x := v.(type) {
	case json.Number:
		if err := checkInteger(string(x), path); err != nil {
			*out = append(*out, dpe.Finding{Path: path, Rule: RuleSafeInteger, Severity: dpe.Violation, Page: -1, Element: -1,
				Message: "integer " + truncate(string(x), 40) + " is beyond ±(2^53−1); send large ids as strings"})
		}
	case []any:
		for i, e := range x {
			scanIntegers(e, path+"["+strconv.Itoa(i)+"]", depth+1, out)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			scanIntegers(x[k], path+pathKey(k), depth+1, out)
		}
	}
}
