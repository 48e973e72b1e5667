package dpe

import (
	"encoding/json"
	"fmt"
)

// wire checks what the peers said about the document besides the document
// itself: the get_dpe answer (CheckOptions.Answer) and the listing entry
// (CheckOptions.Listing). The client reads both leniently (an unreadable
// expires_at counts as "expiring now", a keyword that is not a string is
// dropped, a bad lastModified is marked in the listing); here each is a
// finding with its JSON path. Paths name the message: "get_dpe:$…",
// "listing:$…".
func (c *checker) wire() {
	if len(c.opt.Answer) > 0 {
		var ans struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		if json.Unmarshal(c.opt.Answer, &ans) == nil {
			if raw, ok := ans.Meta["expires_at"]; ok {
				c.wireTime("get_dpe:$._meta.expires_at", RuleExpiresAt, "_meta.expires_at", raw)
			}
		}
	}
	if len(c.opt.Listing) == 0 {
		return
	}
	var res struct {
		Meta        map[string]json.RawMessage `json:"_meta"`
		Annotations map[string]json.RawMessage `json:"annotations"`
	}
	if json.Unmarshal(c.opt.Listing, &res) != nil {
		return
	}
	if raw, ok := res.Annotations["lastModified"]; ok {
		c.wireTime("listing:$.annotations.lastModified", RuleListingModified, "annotations.lastModified", raw)
	}
	if raw, ok := res.Meta["last_modified"]; ok {
		c.wireTime("listing:$._meta.last_modified", RuleListingModified, "_meta.last_modified", raw)
	}
	raw, ok := res.Meta["keywords"]
	if !ok || string(raw) == "null" {
		return
	}
	var kws []json.RawMessage
	if json.Unmarshal(raw, &kws) != nil {
		c.doc("listing:$._meta.keywords", RuleListingKeywords, Violation, string(raw),
			"_meta.keywords is %s, not an array of strings", jsonKind(raw))
		return
	}
	for i, k := range kws {
		var s string
		if json.Unmarshal(k, &s) != nil {
			c.doc(fmt.Sprintf("listing:$._meta.keywords[%d]", i), RuleListingKeywords, Violation, string(k),
				"keyword %d is %s, not a string (the listing drops it)", i, jsonKind(k))
		}
	}
}

// wireTime reports a date-time of a peer message that is not ISO 8601
// (the same reading as the client's: ParseTimestamp).
func (c *checker) wireTime(path, rule, field string, raw json.RawMessage) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		c.doc(path, rule, Violation, string(raw), "%s is %s, not an ISO 8601 date-time string", field, jsonKind(raw))
		return
	}
	if _, err := ParseTimestamp(s); err != nil {
		c.doc(path, rule, Violation, s, "%s %q is not an ISO 8601 date-time", field, s)
	}
}
