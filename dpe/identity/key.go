package identity

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/dpe-tui/dpe-tui/dpe"
)

// Key is the one content key of a document JSON for caches: its doc_hash
// ("dpe1:…") when it can be computed from doc alone, else "sha256:" and
// the digest of the bytes (a document outside the contract — unknown
// file_type or category — or one whose pages are manifest URIs). Two
// documents with equal doc_hash share a key even when their bytes differ
// (equivalent content, core §2.7).
func Key(doc []byte) string {
	if d, err := dpe.Decode(doc, dpe.DefaultLimits()); err == nil {
		ok := true
		for i := range d.Pages {
			if d.EnsurePage(i, dpe.DefaultLimits()) != nil {
				ok = false
				break
			}
		}
		if ok {
			if r := Compute(Map(doc, d)); r.OK() {
				return string(r.DocHash)
			}
		}
	}
	sum := sha256.Sum256(doc)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// KeyHex is the 64 hex digits of a Key (for file names and URL paths).
func KeyHex(key string) string {
	if h, ok := cutPrefix(key, Prefix); ok {
		return h
	}
	h, _ := cutPrefix(key, "sha256:")
	return h
}
