package wire

import (
	"strings"
	"testing"
)

// FuzzDecodeProblem: any body and header either decode to a known code
// whose retryable is the code's, or are refused; nothing panics.
func FuzzDecodeProblem(f *testing.F) {
	f.Add([]byte(`{"type":"urn:dpe:error:precondition-failed","status":412,"code":"DPE_PRECONDITION_FAILED","retryable":true}`), "DPE_PRECONDITION_FAILED")
	f.Add([]byte(`{"code":"DPE_MISSING_CONTENT","missing":{"pages":["dpe1:x"]},"missing_truncated":true}`), "")
	f.Add([]byte(``), "DPE_NOT_FOUND")
	f.Add([]byte(`{"code":7}`), "")
	f.Fuzz(func(t *testing.T, body []byte, header string) {
		p, err := DecodeProblem(body, header)
		if err != nil {
			return
		}
		if !p.Code.Known() || p.Retryable != p.Code.Retryable() {
			t.Fatalf("decoded %+v", p)
		}
		if s := p.Error(); strings.ContainsAny(s, "\x1b\r\n") {
			t.Fatalf("Error() carries control characters: %q", s)
		}
	})
}

// FuzzParseObjects: the validators never panic, and what they accept
// hashes to a dpe1 value stable under a second parse.
func FuzzParseObjects(f *testing.F) {
	f.Add([]byte(`{"category":"NarrativeText","text":"x","metadata":{"lang":"zh"}}`))
	f.Add([]byte(`{"title":null,"page_metadata":{},"elements":["dpe1:` + strings.Repeat("a", 64) + `"]}`))
	f.Add([]byte(`{"file_type":"md","pages":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if CheckIJSON(b) != nil {
			return
		}
		for _, parse := range []func([]byte) (string, *Violation){
			func(b []byte) (string, *Violation) { _, h, v := ParseElement(b); return h, v },
			func(b []byte) (string, *Violation) { _, h, v := ParsePage(b); return h, v },
			func(b []byte) (string, *Violation) { _, h, v := ParseDocument(b); return h, v },
		} {
			h, v := parse(b)
			if v != nil {
				continue
			}
			if !ValidHash(h) {
				t.Fatalf("hash %q", h)
			}
			if h2, _ := parse(b); h2 != h {
				t.Fatalf("unstable hash %s %s", h, h2)
			}
		}
	})
}

func FuzzNormalizeURI(f *testing.F) {
	f.Add("HTTP://Example.COM/%7euser/%2f?q#F")
	f.Add("feishu:xxx")
	f.Fuzz(func(t *testing.T, s string) {
		n, v := NormalizeURI(s)
		if v != nil {
			return
		}
		// core §1.1: normalization is idempotent.
		if n2, v := NormalizeURI(n); v != nil || n2 != n {
			t.Fatalf("normalize(%q) = %q, again %q %v", s, n, n2, v)
		}
	})
}
