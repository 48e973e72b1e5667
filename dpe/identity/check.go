package identity

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// Rules of the findings Check returns.
const (
	RulePageNumberUnique = dpe.RuleDPE1PageNumber
	RuleSafeInteger      = dpe.RuleDPE1SafeInteger
)

// Check reports the identity problems of a document JSON as conformance
// findings with JSON paths: page numbers (number, else page_index) that
// repeat, and integer literals anywhere beyond ±(2^53−1) (core §2.6). It
// reads only body, so it works before any page is decoded; manifest
// pages fetched separately are not seen.
func Check(body []byte) []dpe.Finding {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return nil
	}
	var out []dpe.Finding
	var pages []map[string]json.RawMessage
	if json.Unmarshal(top["pages"], &pages) == nil {
		seen := map[string]string{}
		for i, p := range pages {
			// A v0.2 page without "number" is paired by page_index, whose
			// uniqueness dpe's own page-index rule already reports.
			const key = "number"
			raw, ok := p[key]
			if !ok {
				continue
			}
			lit := string(raw)
			path := fmt.Sprintf("$.pages[%d].%s", i, key)
			if first, dup := seen[lit]; dup {
				out = append(out, dpe.Finding{Path: path, Rule: RulePageNumberUnique, Severity: dpe.Violation, Page: i, Element: -1,
					Message: "page " + key + " " + truncate(lit, 40) + " repeats " + first + " (page numbers identify pages and must be unique)"})
			} else {
				seen[lit] = path
			}
		}
	}
	dec := json.NewDecoder(bytesReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return out
	}
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
