package dpe

import (
	"strings"
	"testing"
)

func TestClassify_MimeThenSniff(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	tests := []struct {
		name, data, mime string
		want             ContentKind
	}{
		{"dpe inline mime", `{"pages":[]}`, "application/vnd.a2c.dpe-inline+json", KindDocument},
		{"json mime", `{"pages":[]}`, "application/json; charset=utf-8", KindDocument},
		{"json not a document still goes to Decode", `[1]`, "application/json", KindDocument},
		{"json sniffed", "\xef\xbb\xbf  {\"pages\":[]}", "", KindDocument},
		{"json sniffed from octet-stream", `{"pages":[]}`, "application/octet-stream", KindDocument},
		{"markdown mime", "hello", "text/markdown", KindMarkdown},
		{"markdown sniffed", "# Title\n\n- item\n- [link](x)\n", "", KindMarkdown},
		{"text mime", "# not treated as md", "text/plain", KindText},
		{"text sniffed", "just some words\non lines\n", "", KindText},
		{"text with NUL is binary", "ab\x00cd", "text/plain", KindBinary},
		{"invalid utf8 is binary", "ab\xff\xfecd", "", KindBinary},
		{"png sniffed", png, "", KindBinary},
		{"pdf mime", "%PDF-1.7", "application/pdf", KindBinary},
		{"image mime", "xx", "image/png", KindBinary},
		{"utf8 cut at 8KiB boundary is still text", strings.Repeat("a", 8191) + "é", "text/plain", KindText},
	}
	for _, tt := range tests {
		if got := Classify([]byte(tt.data), tt.mime); got != tt.want {
			t.Errorf("%s: Classify = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSuggestFileName_LastSegmentAndMimeExtension(t *testing.T) {
	tests := []struct{ uri, mime, want string }{
		{"file:///reports/summary.md", "text/markdown", "summary.md"},
		{"file:///example.txt", "text/plain", "example.txt"},
		{"https://oss.example.com/a/b/report?sig=x", "application/pdf", "report.pdf"},
		{"https://h/a/notes", "text/markdown; charset=utf-8", "notes.md"},
		{"dpe://com.example.docs/reports/2026/annual", "application/vnd.a2c.dpe-inline+json", "annual.dpe.json"},
		{"https://h/", "image/png", "download.png"},
		{"https://h/..", "", "download"},
		{"https://h/.bashrc", "text/plain", "bashrc.txt"},
		{"https://h/a%2F..%2Fetc%2Fpasswd", "", "passwd"},
		{"https://h/evil%1b%5b2J.txt", "", "evil[2J.txt"},
		{"https://h/gpj%E2%80%AE.exe", "", "gpj.exe"},
		{"https://h/data.bin", "application/octet-stream", "data.bin"},
		{"https://h/blob", "application/x-unknown", "blob"},
	}
	for _, tt := range tests {
		if got := SuggestFileName(tt.uri, tt.mime); got != tt.want {
			t.Errorf("SuggestFileName(%q, %q) = %q, want %q", tt.uri, tt.mime, got, tt.want)
		}
	}
	long := SuggestFileName("https://h/"+strings.Repeat("é", 300)+".csv", "")
	if len(long) > 255 || !strings.HasSuffix(long, ".csv") {
		t.Errorf("long name: %d bytes %q…", len(long), long[len(long)-8:])
	}
}
