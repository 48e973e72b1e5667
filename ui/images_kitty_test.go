package ui

import (
	"io"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi/kitty"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpe-tui/dpe-tui/render"
)

// Images:"kitty" on the real program: the document's image is sent once
// as a kitty virtual placement, drawn as placeholder cells in the frame,
// and deleted from the terminal when the program quits.
func TestImages_KittyPlaceholdersOnScreenTransmitOnceDeleteOnQuit(t *testing.T) {
	f := newFakeAgent(t)
	opt := testOptions(f)
	opt.Images = "kitty"
	s := start(t, opt)
	s.toDocument()
	s.keys("i") // the chart
	s.waitUntil("placeholder cells", func(fr string) bool { return strings.ContainsRune(fr, kitty.Placeholder) })
	s.idle()
	s.keys("ctrl+c") // the model's own quit, which cleans up
	fm := s.tm.FinalModel(t, teatest.WithFinalTimeout(20*time.Second)).(probeModel)
	frame := fm.View().Content
	// The id is the foreground colour of the cells: image 1 is 0,0,1.
	if !strings.Contains(frame, "38;2;0;0;1m"+string(kitty.Placeholder)+string(kitty.Diacritic(0))+string(kitty.Diacritic(0))) {
		t.Fatalf("no placeholder cell of image 1 in the frame:\n%q", frame)
	}
	out, err := io.ReadAll(s.tm.FinalOutput(t, teatest.WithFinalTimeout(20*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	o := string(out)
	if n := strings.Count(o, "a=T"); n != 1 {
		t.Errorf("the image was transmitted %d times, want once", n)
	}
	for _, want := range []string{"i=1,", "U=1", "q=2", "f=100"} {
		if !strings.Contains(o, want) {
			t.Errorf("the transmission lacks %q", want)
		}
	}
	if !strings.Contains(o, render.KittyDelete(1)) {
		t.Errorf("image 1 was not deleted on quit")
	}
}

// queryModel is a synchronous model whose Init sent the terminal query;
// it returns the query bytes written.
func queryModel(t *testing.T, images string) (*model, string) {
	t.Helper()
	f := newFakeAgent(t)
	opt := testOptions(f)
	opt.Images = images
	m := New(opt).m
	cmd := m.startImageQuery()
	if cmd == nil {
		return m, ""
	}
	var raw string
	for _, c := range cmd().(tea.BatchMsg) {
		if c == nil {
			continue
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		select {
		case msg := <-done:
			if r, ok := msg.(tea.RawMsg); ok {
				raw += r.Msg.(string)
			}
		case <-time.After(20 * time.Millisecond): // the timeout tick
		}
	}
	return m, raw
}

// Auto: the kitty graphics query then DA1 go out; a graphics OK picks
// kitty; DA1 or the timeout without it leaves blocks, and an answer after
// that changes nothing.
func TestImages_AutoQueryPicksKittyOnlyWhenTheTerminalSaysSo(t *testing.T) {
	m, raw := queryModel(t, "")
	if !strings.Contains(raw, "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\") || !strings.HasSuffix(raw, "\x1b[c") {
		t.Fatalf("query = %q, want the kitty graphics query then DA1", raw)
	}
	if got := m.e.renderer.ImageMode(); got != render.ImagesBlocks {
		t.Fatalf("before any answer the mode is %q", got)
	}
	m.update(uv.KittyGraphicsEvent{Options: kitty.Options{ID: kittyQueryID}, Payload: []byte("OK")})
	m.update(uv.PrimaryDeviceAttributesEvent{62, 4, 22})
	if got := m.e.renderer.ImageMode(); got != render.ImagesKitty {
		t.Fatalf("a kitty terminal got %q", got)
	}

	// A terminal with sixel but no kitty graphics: DA1 alone.
	m, _ = queryModel(t, "auto")
	m.update(uv.PrimaryDeviceAttributesEvent{62, 4, 22})
	m.update(uv.KittyGraphicsEvent{Options: kitty.Options{ID: kittyQueryID}, Payload: []byte("OK")}) // too late
	if got := m.e.renderer.ImageMode(); got != render.ImagesBlocks {
		t.Fatalf("a DA1-only terminal got %q, want blocks", got)
	}

	// No answer at all: the bounded wait ends in blocks.
	m, _ = queryModel(t, "")
	m.update(imageQueryTimeoutMsg{})
	m.update(uv.KittyGraphicsEvent{Options: kitty.Options{ID: kittyQueryID}, Payload: []byte("OK")})
	if got := m.e.renderer.ImageMode(); got != render.ImagesBlocks {
		t.Fatalf("a silent terminal got %q, want blocks", got)
	}

	// An error answer is no kitty.
	m, _ = queryModel(t, "")
	m.update(uv.KittyGraphicsEvent{Options: kitty.Options{ID: kittyQueryID}, Payload: []byte("ENOTSUPPORTED:")})
	if got := m.e.renderer.ImageMode(); got != render.ImagesBlocks {
		t.Fatalf("an error answer got %q", got)
	}

	// Set explicitly: no query.
	for _, tt := range []struct{ opt, want string }{{"kitty", render.ImagesKitty}, {"sixel", render.ImagesBlocks}, {"blocks", render.ImagesBlocks}} {
		m, raw := queryModel(t, tt.opt)
		if raw != "" || m.e.renderer.ImageMode() != tt.want {
			t.Errorf("Images %q: query %q, mode %q (want %q)", tt.opt, raw, m.e.renderer.ImageMode(), tt.want)
		}
	}
}

// runRaw is run that also returns what the commands asked to write to the
// terminal (tea.Raw).
func runRaw(t *testing.T, m *model, cmd tea.Cmd) string {
	t.Helper()
	var raw strings.Builder
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 10000 {
			t.Fatal("command loop did not settle")
		}
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
		case tea.RawMsg:
			raw.WriteString(msg.Msg.(string))
		case spinner.TickMsg, nil:
		default:
			var next tea.Cmd
			guard(t, "Update", func() { next = m.update(msg) })
			queue = append(queue, next)
		}
	}
	return raw.String()
}

// Leaving a document deletes its images from the terminal; a document
// opened after it transmits under fresh ids.
func TestImages_KittyImagesDeletedWhenTheDocumentCloses(t *testing.T) {
	f := newFakeAgent(t)
	m := newTestModel(t, f)
	listOffice(t, m)
	m.e.renderer.SetImageMode(render.ImagesKitty)
	out := runRaw(t, m, m.openDPE(openURIMsg{uri: reportURI}))
	if m.docS() == nil {
		t.Fatal("document not open")
	}
	out += runRaw(t, m, m.update(keyMsg("i")))
	if strings.Count(out, "a=T") != 1 || !strings.Contains(out, "i=1,") {
		t.Fatalf("opening the document should transmit image 1 once; wrote %q", out)
	}
	if fr := m.view().Content; !strings.ContainsRune(fr, kitty.Placeholder) {
		t.Fatalf("no placeholder cells in the frame")
	}
	out = runRaw(t, m, m.update(keyMsg("esc")))
	if m.docS() != nil {
		t.Fatal("esc should close the document")
	}
	if out != render.KittyDelete(1) {
		t.Fatalf("closing wrote %q, want the delete of image 1", out)
	}
}
