package dpe

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseURI_AcceptsSpecExamples(t *testing.T) {
	tests := []struct {
		in   string
		host string
		segs []string
	}{
		{"dpe://com.example.docs/rpt-2026", "com.example.docs", []string{"rpt-2026"}},
		{"dpe://com.example.docs/reports/2026/annual", "com.example.docs", []string{"reports", "2026", "annual"}},
		{"dpe://com.example.code/src/main/java/Foo.java", "com.example.code", []string{"src", "main", "java", "Foo.java"}},
		{"dpe://com.example.mail/inbox/2026-01-15/email-abc", "com.example.mail", []string{"inbox", "2026-01-15", "email-abc"}},
		{"DPE://Host/x", "Host", []string{"x"}},
		{"dpe://h/财务/年报", "h", []string{"财务", "年报"}},
		{"dpe://h/a:b@c", "h", []string{"a:b@c"}},
	}
	for _, tt := range tests {
		u, err := ParseURI(tt.in)
		if err != nil {
			t.Errorf("ParseURI(%q): %v", tt.in, err)
			continue
		}
		if u.Host != tt.host || !slices.Equal(u.Segments, tt.segs) {
			t.Errorf("ParseURI(%q) = %q %q, want %q %q", tt.in, u.Host, u.Segments, tt.host, tt.segs)
		}
	}
}

func TestParseURI_EachSegmentPercentDecodedAlone(t *testing.T) {
	one, err := ParseURI("dpe://h/a%2Fb")
	if err != nil {
		t.Fatal(err)
	}
	two, err := ParseURI("dpe://h/a/b")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one.Segments, []string{"a/b"}) {
		t.Fatalf("a%%2Fb segments = %q, want one segment \"a/b\"", one.Segments)
	}
	if one.Equal(two) {
		t.Fatal("a%2Fb must not equal a/b: one segment vs two")
	}
	if one.DocRef() != "a/b" || one.String() != "dpe://h/a%2Fb" {
		t.Fatalf("DocRef %q String %q", one.DocRef(), one.String())
	}
	sp, err := ParseURI("dpe://h/my%20doc%3F%23%25")
	if err != nil {
		t.Fatal(err)
	}
	if sp.Segments[0] != "my doc?#%" || sp.String() != "dpe://h/my%20doc%3F%23%25" {
		t.Fatalf("got %q / %q", sp.Segments[0], sp.String())
	}
}

func TestParseURI_RejectionsHaveReasons(t *testing.T) {
	tests := []struct{ in, reason string }{
		{"", "empty"},
		{"http://h/a", `scheme is "http"`},
		{"h/a", "missing scheme"},
		{"dpe:/h/a", `missing "//"`},
		{"dpe:///a", "host is empty"},
		{"dpe://h", "doc-ref is empty"},
		{"dpe://h/", "doc-ref is empty"},
		{"dpe://h/a//b", "segment 2 is empty"},
		{"dpe://h/a/", "trailing"},
		{"dpe://user@h/a", "userinfo"},
		{"dpe://h:8080/a", "port not allowed"},
		{"dpe://h%41/a", "percent-encoded"},
		{"dpe://h h/a", "host contains"},
		{"dpe://h/a%2", "incomplete percent escape"},
		{"dpe://h/a%zz", `bad percent escape "%zz"`},
		{"dpe://h/a%00", "control character"},
		{"dpe://h/a%ff", "invalid UTF-8"},
		{"dpe://h/a\x1b[2J", "control character 0x1b"},
		{"dpe://h/a\u0085", "U+0085"},
		{"dpe://h/a?x=1", "query not allowed"},
		{"dpe://h/a#p3", "fragment not allowed"},
		{"dpe://h/a?x#y", "query and fragment not allowed"},
		{"dpe://h/a b", `" " must be percent-encoded`},
		{"dpe://h/../etc", "dot segment"},
		{"dpe://h/a/%2E%2E", "dot segment"},
		{"dpe://h/" + strings.Repeat("a", MaxURILength), "too long"},
	}
	for _, tt := range tests {
		_, err := ParseURI(tt.in)
		var ue *URIError
		if !errors.As(err, &ue) {
			t.Errorf("ParseURI(%q) err = %v, want *URIError", tt.in, err)
			continue
		}
		if !strings.Contains(ue.Reason, tt.reason) {
			t.Errorf("ParseURI(%q) reason = %q, want it to contain %q", tt.in, ue.Reason, tt.reason)
		}
		if !strings.HasPrefix(err.Error(), "invalid dpe URI ") || strings.ContainsAny(err.Error(), "\n\x1b") {
			t.Errorf("Error() = %q: want one safe line", err.Error())
		}
	}
}

func TestParseURILenient_DropsQueryAndFragmentWithWarning(t *testing.T) {
	tests := []struct {
		in   string
		warn string
	}{
		{"dpe://h/a/b?x=1", "query"},
		{"dpe://h/a/b#frag", "fragment"},
		{"dpe://h/a/b?x#y", "query and fragment"},
		{"dpe://h/a/b", ""},
	}
	want := URI{Host: "h", Segments: []string{"a", "b"}}
	for _, tt := range tests {
		u, warns, err := ParseURILenient(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if !u.Equal(want) {
			t.Errorf("%q parsed to %v", tt.in, u)
		}
		if tt.warn == "" && len(warns) != 0 || tt.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0], tt.warn+" ")) {
			t.Errorf("%q warnings = %q, want one about %q", tt.in, warns, tt.warn)
		}
	}
	if _, _, err := ParseURILenient("dpe://h/?q"); err == nil {
		t.Error("lenient parse must still reject an empty doc-ref")
	}
}

func TestParseURILenient_AcceptsUnencodedCharsWithWarning(t *testing.T) {
	u, warns, err := ParseURILenient("dpe://h/my doc")
	if err != nil || u.Segments[0] != "my doc" || len(warns) != 1 {
		t.Fatalf("got %v %q %v", u, warns, err)
	}
	if u.String() != "dpe://h/my%20doc" {
		t.Fatalf("String() = %q", u.String())
	}
}

func TestURIEqual_HostCaseInsensitiveSegmentsDecoded(t *testing.T) {
	tests := []struct {
		a, b string
		eq   bool
	}{
		{"dpe://Com.Example/x", "dpe://com.example/x", true},
		{"dpe://h/%41", "dpe://h/A", true},
		{"dpe://h/a", "dpe://h/A", false},
		{"dpe://h/a/b", "dpe://h/a", false},
		{"dpe://h/a%2Fb", "dpe://h/a/b", false},
		{"dpe://h/caf%C3%A9", "dpe://h/café", true},
	}
	for _, tt := range tests {
		a, err1 := ParseURI(tt.a)
		b, err2 := ParseURI(tt.b)
		if err1 != nil || err2 != nil {
			t.Fatalf("%v %v", err1, err2)
		}
		if a.Equal(b) != tt.eq || b.Equal(a) != tt.eq {
			t.Errorf("Equal(%q, %q) = %v, want %v", tt.a, tt.b, a.Equal(b), tt.eq)
		}
	}
}

func FuzzParseURI(f *testing.F) {
	for _, s := range []string{
		"dpe://com.example.docs/rpt-2026", "dpe://h/a%2Fb", "dpe://h/a//b", "dpe://h/a?x#y",
		"dpe://h/财务", "dpe://h/a%20b/%25", "dpe://u@h:1/a", "DPE://H/x", "dpe://h/a b<>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, lenient := range []bool{false, true} {
			u, _, err := parseURI(s, lenient)
			if err != nil {
				var ue *URIError
				if !errors.As(err, &ue) || ue.Reason == "" {
					t.Fatalf("%q: error without reason: %v", s, err)
				}
				continue
			}
			if u.Host == "" || len(u.Segments) == 0 {
				t.Fatalf("%q parsed to empty parts %#v", s, u)
			}
			out := u.String()
			v, err := ParseURI(out)
			if err != nil {
				t.Fatalf("%q → String %q does not parse strictly: %v", s, out, err)
			}
			if !u.Equal(v) || v.String() != out {
				t.Fatalf("%q → %q → %#v: round trip changed it", s, out, v)
			}
		}
	})
}
