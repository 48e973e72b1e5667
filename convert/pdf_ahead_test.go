package convert

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPDFReadAheadReadsLikeOnePage: a whole PDF converted with every
// other page read on the second instance is the same, page for page, as
// the pages converted one by one on the document's own instance, and the
// second instance did read pages. The PDF is the corpus's files joined
// by qpdf (12 pages: columns, tables continued over a page, pictures).
func TestPDFReadAheadReadsLikeOnePage(t *testing.T) {
	qpdf, err := exec.LookPath("qpdf")
	if err != nil {
		t.Skip("qpdf is not installed")
	}
	file := filepath.Join(t.TempDir(), "joined.pdf")
	args := []string{"--empty", "--pages"}
	for _, f := range []string{"onecolumn", "tables", "plain", "twocolumns", "figure", "threecolumns"} {
		args = append(args, filepath.Join("testdata", "pdf", f+".pdf"))
	}
	if out, err := exec.Command(qpdf, append(args, "--", file)...).CombinedOutput(); err != nil {
		t.Fatalf("qpdf: %v\n%s", err, out)
	}
	c := New(Options{})
	defer c.Close()
	ctx := context.Background()

	whole, err := c.OpenFile(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	if whole.PageCount() < pdfAheadPages {
		t.Fatalf("%d pages, fewer than the %d that read ahead", whole.PageCount(), pdfAheadPages)
	}
	js, err := whole.JSON(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := whole.pages.(*closeAfter).Pages.(*pdfPages)
	read := 0
	if p.ahead != nil {
		read = p.ahead.read
	}
	if err := whole.Close(); err != nil {
		t.Fatal(err)
	}
	if read < whole.PageCount()/2-1 {
		t.Errorf("the second instance read %d of %d pages, want every other one", read, whole.PageCount())
	}
	var got struct {
		Pages []json.RawMessage `json:"pages"`
	}
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatal(err)
	}

	alone, err := c.OpenFile(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	defer alone.Close()
	for i := range alone.PageCount() {
		want, err := alone.PageJSON(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(got.Pages) || !jsonEqual(t, got.Pages[i], want) {
			t.Errorf("page %d differs read ahead:\n%.400s\nalone:\n%.400s", i+1, got.Pages[i], want)
		}
	}
	if alone.pages.(*closeAfter).Pages.(*pdfPages).ahead != nil {
		t.Error("pages read one by one started the second instance")
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}
