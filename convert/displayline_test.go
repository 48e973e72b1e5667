package convert

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dpe-tui/dpe-tui/dpe"
)

func TestDisplayLineCutsAtARuneAndSaysSo(t *testing.T) {
	if got := displayLine("short", 64); got != "short" {
		t.Fatalf("short line changed: %q", got)
	}
	long := strings.Repeat("é", 100) // 200 bytes
	got := displayLine(long, 64)
	if len(got) > 64 || !utf8.ValidString(got) || !strings.HasSuffix(got, "(cut from 200 bytes)") || !strings.HasPrefix(got, "éé") {
		t.Fatalf("got %q (%d bytes)", got, len(got))
	}
}

// Every reader's title, summary, keywords and page titles pass one
// boundary (Info.bounded), so an HTML <title>, <meta> description or
// keywords list, or a heading that titles a page, is a display line.
func TestHTMLHugeHeadIsBounded(t *testing.T) {
	huge := strings.Repeat("t", 1<<20)
	html := "<html><head><title>" + huge + "</title><meta name=keywords content=\"" + strings.Repeat("k,", 200_000) +
		"\"><meta name=description content=\"" + huge + "\"></head><body><h1>" + huge + "</h1><p>x</p></body></html>"
	c := testConverter(t)
	doc, err := convertBytes(t, c, "head.html", []byte(html))
	if err != nil {
		t.Fatal(err)
	}
	cut := fmt.Sprintf("(cut from %d bytes)", len(huge))
	if len(doc.Title) > maxTitleBytes || !strings.HasSuffix(doc.Title, cut) {
		t.Errorf("title %d bytes ending %q", len(doc.Title), doc.Title[max(0, len(doc.Title)-30):])
	}
	if len(doc.Summary) > maxSummaryBytes || !strings.HasSuffix(doc.Summary, cut) {
		t.Errorf("summary %d bytes", len(doc.Summary))
	}
	if len(doc.Keywords) != maxKeywords {
		t.Errorf("%d keywords, want %d", len(doc.Keywords), maxKeywords)
	}
	for i, p := range doc.Pages {
		if len(p.Title) > maxTitleBytes {
			t.Errorf("page %d title %d bytes", i, len(p.Title))
		}
	}
	if ti := elementsOf(doc, "Title"); len(ti) != 1 || ti[0].Text != huge {
		t.Errorf("the heading itself should be kept whole once")
	}
}

// A subject past the output budget is that message's LimitError, charged
// when its Title is built, not after the JSON is.
func TestEMLSubjectOverTheOutputBudget(t *testing.T) {
	msg := "From: a@example.com\r\nSubject: " + strings.Repeat("s", 2<<20) + "\r\nContent-Type: text/plain\r\n\r\nbody\r\n"
	c := New(Options{CacheDir: "-", Limits: Limits{MaxOutputBytes: 1 << 20}})
	defer c.Close()
	_, err := convertBytes(t, c, "big.eml", []byte(msg))
	var le *dpe.LimitError
	if !errors.As(err, &le) || le.What != "output size" || le.Limit != 1<<20 || le.Got <= 2<<20 {
		t.Fatalf("got %v, want an output size LimitError over %d", err, 2<<20)
	}
}
