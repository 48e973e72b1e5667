package sanitize

import "testing"

func TestURL_RedactsUserinfoQueryValuesAndFragment(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://alice:pw@host:7800/?token=x", "http://xxxxx@host:7800/?token=xxxxx"},
		{"https://TOKEN@github.com/a/b", "https://xxxxx@github.com/a/b"},
		{"http://127.0.0.1:9/doc?exp=1&sig=abc&flag", "http://127.0.0.1:9/doc?exp=xxxxx&sig=xxxxx&flag"},
		{"http://h/p#access_token=s", "http://h/p#xxxxx"},
		{"dpe://host/caf%C3%A9.md", "dpe://host/caf%C3%A9.md"},
		{"file:///tmp/a.json", "file:///tmp/a.json"},
		{"http://u:p@h/%zz?sig=1", "http://xxxxx@h/%zz?xxxxx"},
		{"not a url?secret", "not a url?xxxxx"},
		{"", ""},
	} {
		if got := URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestURLsIn_RedactsEveryURLInText(t *testing.T) {
	in := `Get "http://alice:pw@host/?token=x": dial tcp: refused; retry https://k@h2/p?sig=y`
	want := `Get "http://xxxxx@host/?token=xxxxx": dial tcp: refused; retry https://xxxxx@h2/p?sig=xxxxx`
	if got := URLsIn(in); got != want {
		t.Errorf("URLsIn = %q\nwant     %q", got, want)
	}
}

func TestHyperlinkURL_OnlyPrintableHTTPAndHTTPS(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"https://example.com/spec?a=1#x", "https://example.com/spec?a=1#x", true},
		{"HTTP://example.com/a b", "http://example.com/a%20b", true},
		{"https://example.com/é", "https://example.com/%C3%A9", true},
		{"https://example.com/\x1b]8;;evil\x07", "", false},
		{"https://example.com/\x07", "", false},
		{"https://example.com/\u009b", "https://example.com/%C2%9B", true}, // encoded: no C1 byte left
		{"file:///etc/passwd", "", false},
		{"javascript:alert(1)", "", false},
		{"dpe://local/doc", "", false},
		{"mailto:a@example.com", "", false},
		{"other.md", "", false},
		{"https:///nohost", "", false},
	}
	for _, tt := range tests {
		got, ok := HyperlinkURL(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("HyperlinkURL(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
