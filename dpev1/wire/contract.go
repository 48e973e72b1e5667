package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/dpe-tui/dpe-tui/dpe/identity"
)

// This file is the seam to dpe/identity: the contract's enums, the object
// hash H(obj) = "dpe1:" + hex(SHA-256(JCS(norm(obj)))) (contract 1 §3.1
// at 0808ede, 0.2.1/spec/hash-contract-1) and the file_uri normalization
// of core §1.1. Nothing else in dpev1 or remote hashes.

// HashPrefix starts every dpe1 hash value.
const HashPrefix = identity.Prefix

// contentFields returns the content fields category c allows (contract 1
// §4.1), and false for a category outside the closed enum.
func contentFields(c string) ([]string, bool) {
	switch c {
	case "Image":
		return []string{"text", "blob", "mime_type"}, true
	case "Table", "Formula":
		return []string{"text", "text_as_html"}, true
	case "UncategorizedText", "CheckBox", "CompositeElement", "FigureCaption", "NarrativeText",
		"ListItem", "Title", "Address", "EmailAddress", "PageBreak", "TableChunk", "Header",
		"Footer", "CodeSnippet", "PageNumber", "FormKeysValues", "tfchat":
		return []string{"text"}, true
	}
	return nil, false
}

func fileTypeKnown(s string) bool { return identity.FileTypeKnown(s) }

// hashObject is H(obj) over an object whose members were validated;
// identity.Meta applies norm's null rule and JCS (it also refuses unsafe
// integers, which validation already did).
func hashObject(members map[string]json.RawMessage) (string, error) {
	raw, err := json.Marshal(members)
	if err != nil {
		return "", err
	}
	c, err := identity.Meta(raw, "")
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return HashPrefix + hex.EncodeToString(sum[:]), nil
}

// checkMeta validates one metadata value: an object (or null) whose
// integers are safe (core §2.6).
func checkMeta(raw json.RawMessage) error {
	_, err := identity.Meta(raw, "")
	return err
}
