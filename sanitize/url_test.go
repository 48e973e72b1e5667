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
