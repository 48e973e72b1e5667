package convert

import (
	"strings"
	"testing"
)

func TestEMLGolden(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "message.eml")
	if doc.FileType != "eml" || doc.PageCount != 1 || doc.Title != "Quarterly figures" || !strings.HasPrefix(doc.LastModified, "2024-07-01T09:00:00") {
		t.Fatalf("file_type %q, pages %d, title %q, last_modified %q", doc.FileType, doc.PageCount, doc.Title, doc.LastModified)
	}
	s := structure(doc)
	for _, want := range []string{`Title depth=0 "Quarterly figures"`, `EmailAddress "alice@example.org"`, `EmailAddress "bob@example.org"`, `ListItem depth=0 "figure.png (image/png,`, `Image mime=image/png embedded=true "figure.png"`} {
		if !strings.Contains(s, want) {
			t.Errorf("missing %s:\n%s", want, s)
		}
	}
	ti := elementsOf(doc, "Title")[0]
	if string(ti.Metadata["sent_from"]) != `["alice@example.org"]` || string(ti.Metadata["sent_to"]) != `["bob@example.org"]` {
		t.Errorf("sent_from/sent_to %s %s", ti.Metadata["sent_from"], ti.Metadata["sent_to"])
	}
	for _, el := range elementsOf(doc, "EmailAddress") {
		if el.Text == "alice@example.org" && metaString(el, "field") != "from" {
			t.Errorf("from field %s", el.Metadata["field"])
		}
	}
	golden(t, "message.eml", doc)
}

func TestEMLTextOnly(t *testing.T) {
	msg := "From: a@example.com\r\nTo: b@example.com\r\nSubject: Hi\r\nContent-Type: text/plain\r\n\r\nfirst paragraph\r\n\r\nsecond paragraph\r\n"
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	doc, err := convertBytes(t, c, "hi.eml", []byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	n := elementsOf(doc, "NarrativeText")
	if len(n) != 2 || n[0].Text != "first paragraph" || n[1].Text != "second paragraph" {
		t.Errorf("paragraphs:\n%s", structure(doc))
	}
}
