package ui

import (
	"os"
	"strings"
	"testing"
)

// TestCrumbs_LongTitleKeepsThePageAt80Columns: at 80 columns a document
// whose title does not fit keeps "page N/M" on the breadcrumb, with the
// inspector's crumb after it when it is open: the middle crumbs go and
// the title is cut in its middle first, never the page.
func TestCrumbs_LongTitleKeepsThePageAt80Columns(t *testing.T) {
	f := newFakeAgent(t)
	long := "Annual report 2026 of the northern region with every appendix and the auditors' letter"
	b, err := os.ReadFile(f.docs[reportURI])
	if err != nil {
		t.Fatal(err)
	}
	retitled := strings.Replace(string(b), `"title":"Annual report 2026"`, `"title":"`+long+`"`, 1)
	if retitled == string(b) {
		t.Fatal("the fixture's title was not replaced")
	}
	if err := os.WriteFile(f.docs[reportURI], []byte(retitled), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, f)
	listOffice(t, m)
	pushResources(t, m, "laptop", "library")
	press(t, m, "enter")
	if m.docS() == nil {
		t.Fatalf("the report did not open:\n%s", frame(m))
	}
	crumb := func() string { return strings.Split(frame(m), "\n")[1] }
	if c := crumb(); !strings.HasSuffix(strings.TrimRight(c, " "), "page 1/3") || !strings.Contains(c, "Annual report") {
		t.Fatalf("the breadcrumb lost the page or the title's start at 80 columns:\n%q", c)
	}
	press(t, m, ".")
	if c := crumb(); !strings.Contains(c, "page 1/3 › inspector") {
		t.Fatalf("with the inspector open the breadcrumb lost the page:\n%q", c)
	}
}
