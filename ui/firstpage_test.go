package ui

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
)

// firstPageDoc: 30 pages; the last reuses page 1's first element_id, a
// finding only the whole file shows.
func firstPageDoc() (doc []byte, firstEnd int) {
	var b strings.Builder
	b.WriteString(`{"doc_ref":"s","title":"Stream","page_count":30,"pages":[`)
	for i := 0; i < 30; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"page_index":%d,"elements":[`, i)
		for j := 0; j < 40; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			id := fmt.Sprintf("e-%d-%d", i, j)
			if i == 29 && j == 0 {
				id = "e-0-0"
			}
			fmt.Fprintf(&b, `{"element_id":%q,"category":"NarrativeText","text":"PAGE%dTEXT paragraph %d %s"}`, id, i+1, j, strings.Repeat("lorem ipsum ", 20))
		}
		b.WriteString("]}")
		if i == 0 {
			firstEnd = b.Len()
		}
	}
	b.WriteString(`]}`)
	return []byte(b.String()), firstEnd
}

// openFirstPage serves doc[:cut] at once and the rest only when release
// is called, opens it in the model, and drives commands until page 1 is
// on screen. rest are the commands left (they wait for the body).
func openFirstPage(t *testing.T, doc []byte, cut int) (m *model, rest []tea.Cmd, release func()) {
	t.Helper()
	gate := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(doc)))
		_, _ = w.Write(doc[:cut])
		w.(http.Flusher).Flush()
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		_, _ = w.Write(doc[cut:])
	})) // binds 127.0.0.1:0
	t.Cleanup(srv.Close)
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)

	opt := Options{Theme: "dark", Width: 120, Height: 40, Now: func() time.Time { return fixedNow }, StatusTimeout: -1, OpenTarget: srv.URL + "/doc.json"}
	m = New(opt).m
	queue := []tea.Cmd{m.openTarget(srv.URL+"/doc.json", nil)}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		var msg tea.Msg
		guard(t, "command", func() { msg = c() })
		switch msg := msg.(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case spinner.TickMsg, nil:
		case firstPageMsg:
			var next tea.Cmd
			guard(t, "Update", func() { next = m.update(msg) })
			rest = append(rest, next)
		default:
			t.Fatalf("before page 1: %T %+v", msg, msg)
		}
	}
	if rest == nil {
		t.Fatal("no first page while the server held the rest back")
	}
	return m, rest, release
}

// The document screen shows page 1 while the server still holds the rest
// back, says it is validating, and takes the whole document (every page,
// the findings that need the whole file) when it comes.
func TestOpen_FirstPageShownWhileTheRestIsValidated(t *testing.T) {
	doc, cut := firstPageDoc()
	m, rest, release := openFirstPage(t, doc, cut)
	d := m.docS()
	if d == nil || len(d.pages) != 1 {
		t.Fatalf("document screen with page 1 only: %v", d)
	}
	f := frame(m)
	if !strings.Contains(f, "PAGE1TEXT") || !strings.Contains(f, "validating…") {
		t.Fatalf("page 1 and \"validating…\" should be on screen:\n%s", f)
	}
	if d.validateOp != 0 || d.validated {
		t.Error("a provisional document must not be validated")
	}

	release()
	for _, c := range rest {
		run(t, m, c)
	}
	d = m.docS()
	if d == nil || len(d.pages) != 30 || d.op.Partial {
		t.Fatalf("whole document not installed: %v", d)
	}
	if !d.validated {
		t.Fatal("the whole document was not validated")
	}
	late := false
	for _, fd := range d.findings {
		late = late || fd.ID == "DPE-E013"
	}
	if !late {
		t.Errorf("the duplicate element_id on page 30 is not reported: %v", d.findings)
	}
	if f := frame(m); strings.Contains(f, "validating…") || !strings.Contains(f, "PAGE1TEXT") {
		t.Errorf("after the whole document: page 1 without \"validating…\":\n%s", f)
	}
}

// A document whose later bytes are malformed: page 1 was shown, then the
// open fails with one line naming the cause, and the program goes on.
func TestOpen_FirstPageThenMalformedRestSaysWhy(t *testing.T) {
	doc, cut := firstPageDoc()
	bad := append(append([]byte{}, doc[:cut]...), `,{"page_index":1,"elements":[}]}`...)
	m, rest, release := openFirstPage(t, bad, cut)
	release()
	for _, c := range rest {
		run(t, m, c)
	}
	if st := m.statusText(); !strings.Contains(st, "malformed JSON at byte") {
		t.Fatalf("status after a malformed rest: %q", st)
	}
	press(t, m, "j") // still responsive
	if f := frame(m); !strings.Contains(f, "PAGE1TEXT") {
		t.Errorf("page 1 should stay on screen:\n%s", f)
	}
}
