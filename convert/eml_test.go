package convert

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dpe-tui/dpe-tui/dpe"
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

// A forwarded message by Python's email package: named Cc fields, <br>
// kept, the attached original on a page of its own, the CSV and DOCX
// attachments converted onto further pages (their element references
// renumbered), the binary one listed only.
func TestEMLForwardedAttachments(t *testing.T) {
	c := testConverter(t)
	doc := convertFixture(t, c, "forwarded.eml")
	if doc.PageCount != 4 || doc.Title != "Fwd: Night shift report" {
		t.Fatalf("pages %d, title %q:\n%s", doc.PageCount, doc.Title, structure(doc))
	}
	var cc []string
	for _, el := range elementsOf(doc, "EmailAddress") {
		if el.PageIndex == 0 && metaString(el, "field") == "cc" {
			cc = append(cc, metaString(el, "name")+" <"+el.Text+">")
		}
	}
	if strings.Join(cc, ", ") != "Alice Example <alice@example.org>,  <bob@example.org>" {
		t.Errorf("cc %q", cc)
	}
	if n := doc.Pages[0].Elements; !slices.ContainsFunc(n, func(el *dpe.Element) bool {
		return el.Category == "NarrativeText" && el.Text == "Summary:\npumps 1-3 running\nfilter 2 offline"
	}) {
		t.Errorf("<br> line breaks lost:\n%s", structure(doc))
	}
	items := map[string]*dpe.Element{}
	for _, el := range elementsOf(doc, "ListItem") {
		if el.PageIndex == 0 {
			items[strings.Fields(el.Text)[0]] = el
		}
	}
	for name, page := range map[string]int{"Night": 1, "readings.csv": 2, "steps.docx": 3, "dump.bin": -1} {
		el := items[name]
		if el == nil {
			t.Fatalf("no attachment item %s:\n%s", name, structure(doc))
		}
		got := -1
		if _, ok := el.Metadata["attachment_page_index"]; ok {
			got = metaInt(el, "attachment_page_index")
		}
		if got != page || (page >= 0) != strings.Contains(el.Text, fmt.Sprintf(", page %d)", page+1)) {
			t.Errorf("%s: attachment_page_index %d, want %d (%q)", name, got, page, el.Text)
		}
		if page >= 0 && !strings.Contains(string(doc.Pages[page].Extra["metadata"]), `"attachment"`) {
			t.Errorf("page %d has no attachment page metadata", page+1)
		}
	}
	inner := doc.Pages[1]
	if inner.Title != "Night shift report" || inner.Elements[0].Category != "Title" ||
		!slices.ContainsFunc(inner.Elements, func(el *dpe.Element) bool {
			return el.Category == "EmailAddress" && el.Text == "night@example.org" && metaString(el, "name") == "Night Operator"
		}) ||
		!slices.ContainsFunc(inner.Elements, func(el *dpe.Element) bool { return el.Text == "Filter 2 was backwashed at 03:10." }) {
		t.Errorf("attached message page:\n%s", structure(doc))
	}
	if tbl := elementsOf(doc, "Table"); len(tbl) != 1 || tbl[0].PageIndex != 2 || !strings.Contains(metaString(tbl[0], "text_as_html"), "38.2") {
		t.Errorf("CSV attachment table:\n%s", structure(doc))
	}
	ids := map[string]*dpe.Element{}
	for _, el := range doc.Pages[3].Elements {
		ids[el.ID] = el
	}
	var nested *dpe.Element
	for _, el := range doc.Pages[3].Elements {
		if el.Text == "Check the checksum" {
			nested = el
		}
	}
	if nested == nil || ids[metaString(nested, "parent_id")] == nil || ids[metaString(nested, "parent_id")].Text != "Upload" {
		t.Errorf("DOCX attachment's nested item does not point at its parent on its page:\n%s", structure(doc))
	}
}

// Attachment work is bounded: attached messages nest at most
// maxNesting deep, at most maxConverted attachments are converted, and
// the document's page limit holds; what is over is listed with the cause
// and the rest of the message stays.
func TestEMLAttachmentBudget(t *testing.T) {
	inner := "From: a@example.com\r\nSubject: level 9\r\nContent-Type: text/plain\r\n\r\ninnermost\r\n"
	for lvl := 8; lvl >= 0; lvl-- {
		b := fmt.Sprintf("b%d", lvl)
		inner = fmt.Sprintf("From: a@example.com\r\nSubject: level %d\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=%q\r\n\r\n--%s\r\nContent-Type: text/plain\r\n\r\nbody %d\r\n--%s\r\nContent-Type: message/rfc822\r\n\r\n%s\r\n--%s--\r\n", lvl, b, b, lvl, b, inner, b)
	}
	c := New(Options{CacheDir: "-"})
	defer c.Close()
	doc, err := convertBytes(t, c, "nested.eml", []byte(inner))
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + emlAttachmentBudget.maxNesting; doc.PageCount != want {
		t.Errorf("nested messages: %d pages, want %d", doc.PageCount, want)
	}
	last := doc.Pages[len(doc.Pages)-1].Elements
	if el := last[len(last)-1]; el.Category != "ListItem" || !strings.Contains(metaString(el, "attachment_error"), "nesting depth of attached messages") {
		t.Errorf("deepest expanded message's attachment: %s %q %s", el.Category, el.Text, el.Metadata["attachment_error"])
	}

	var sb strings.Builder
	sb.WriteString("From: a@example.com\r\nSubject: many\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"x\"\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\nsee attached\r\n")
	n := emlAttachmentBudget.maxConverted + 2
	for i := range n {
		fmt.Fprintf(&sb, "--x\r\nContent-Type: text/csv\r\nContent-Disposition: attachment; filename=\"t%d.csv\"\r\n\r\na,b\r\n%d,2\r\n", i, i)
	}
	sb.WriteString("--x--\r\n")
	doc, err = convertBytes(t, c, "many.eml", []byte(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 + emlAttachmentBudget.maxConverted; doc.PageCount != want {
		t.Errorf("%d CSV attachments: %d pages, want %d", n, doc.PageCount, want)
	}
	over := 0
	for _, el := range elementsOf(doc, "ListItem") {
		if strings.Contains(metaString(el, "attachment_error"), "attachments converted") {
			over++
		}
	}
	if over != 2 {
		t.Errorf("%d attachments say they were over the budget, want 2", over)
	}

	small := New(Options{CacheDir: "-", Limits: Limits{MaxPages: 3}})
	defer small.Close()
	data, err := os.ReadFile("testdata/forwarded.eml")
	if err != nil {
		t.Fatal(err)
	}
	doc, err = convertBytes(t, small, "forwarded.eml", data)
	if err != nil {
		t.Fatalf("a message whose attachments pass the page limit: %v", err)
	}
	if doc.PageCount != 3 {
		t.Errorf("pages %d, want 3 (the message, its attached message, the CSV)", doc.PageCount)
	}
	for _, el := range elementsOf(doc, "ListItem") {
		if strings.HasPrefix(el.Text, "steps.docx") && !strings.Contains(metaString(el, "attachment_error"), "page count") {
			t.Errorf("steps.docx over the page limit: %q", el.Text)
		}
	}
}
