package dpe

import "testing"

func TestNormalizeURI(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"dpe://h/caf%C3%A9.md", "dpe://h/caf%C3%A9.md"},   // as listed: byte for byte
		{"dpe://h/caf%c3%a9.md", "dpe://h/caf%c3%a9.md"},   // case of escapes kept
		{"dpe://h/café.md", "dpe://h/caf%C3%A9.md"},        // NFC
		{"dpe://h/cafe\u0301.md", "dpe://h/cafe%CC%81.md"}, // NFD stays NFD
		{"dpe://h/报告", "dpe://h/%E6%8A%A5%E5%91%8A"},       // CJK
		{"dpe://h/🎉", "dpe://h/%F0%9F%8E%89"},              // emoji
		{"dpe://h/my notes", "dpe://h/my%20notes"},         // space
		{"dpe://h/a%2Fb/c", "dpe://h/a%2Fb/c"},             // escaped slash stays one segment
		{"dpe://h/x%2Dy", "dpe://h/x%2Dy"},                 // not folded to '-'
		{"dpe://h/100%", "dpe://h/100%25"},                 // a bare '%' is a percent sign
		{"dpe://h/a\"b", "dpe://h/a%22b"},
		{"dpe://h/%ZZ", "dpe://h/%25ZZ"},
	} {
		got, err := NormalizeURI(c.in)
		if err != nil || got != c.want {
			t.Errorf("NormalizeURI(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
		again, _ := NormalizeURI(got)
		if again != got {
			t.Errorf("not idempotent: %q → %q", got, again)
		}
	}
	for _, bad := range []string{"dpe://h/a?q=1", "dpe://h/a#f", "dpe://h/", "dpe://h/a\x01", "dpe://h/\u0085"} {
		if got, err := NormalizeURI(bad); err == nil {
			t.Errorf("NormalizeURI(%q) = %q, want an error", bad, got)
		}
	}
}
