package identity

// Test-only entry point: the product reaches JCS through Meta and the
// hashes; the jcs vectors and the fuzzer canonicalise one value directly.

// Canonical returns the RFC 8785 (JCS) form of one JSON value, after
// checking that no integer literal in it is beyond ±(2^53−1). path names
// the value in errors ("$.doc_metadata").
func Canonical(raw []byte, path string) ([]byte, error) {
	v, err := parse(raw, path, false)
	if err != nil {
		return nil, err
	}
	return canonicalTree(v)
}
