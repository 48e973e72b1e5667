package ui

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi/kitty"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpe-tui/dpe-tui/internal/testbudget"
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
	fm := s.tm.FinalModel(t, teatest.WithFinalTimeout(testbudget.Left(t, 20*time.Second))).(probeModel)
	frame := fm.View().Content
	// The id is the foreground colour of the cells: image 1 is 0,0,1.
	if !strings.Contains(frame, "38;2;0;0;1m"+string(kitty.Placeholder)+string(kitty.Diacritic(0))+string(kitty.Diacritic(0))) {
		t.Fatalf("no placeholder cell of image 1 in the frame:\n%q", frame)
	}
	out, err := io.ReadAll(s.tm.FinalOutput(t, teatest.WithFinalTimeout(testbudget.Left(t, 20*time.Second))))
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
	// Every command of the batch runs to its end (the timeout tick
	// after imageQueryTimeout): which ones wrote the query is read from
	// what they return, never from how fast they did, which a loaded
	// machine cannot promise.
	batch := cmd().(tea.BatchMsg)
	msgs := make([]tea.Msg, len(batch))
	var wg sync.WaitGroup
	for i, c := range batch {
		if c == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			msgs[i] = c()
		}()
	}
	wg.Wait()
	var raw string
	for _, msg := range msgs {
		if r, ok := msg.(tea.RawMsg); ok {
			raw += r.Msg.(string)
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

	// No answer at all: the bounded wait ends in blocks; a graphics OK
	// from a slow link after that is still the terminal's word.
	m, _ = queryModel(t, "")
	m.update(imageQueryTimeoutMsg{})
	if got := m.e.renderer.ImageMode(); got != render.ImagesBlocks || m.imgQuery.pending {
		t.Fatalf("a silent terminal got %q (pending %v), want blocks", got, m.imgQuery.pending)
	}
	m.update(uv.KittyGraphicsEvent{Options: kitty.Options{ID: kittyQueryID}, Payload: []byte("OK")})
	if got := m.e.renderer.ImageMode(); got != render.ImagesKitty {
		t.Fatalf("a late graphics OK got %q, want kitty", got)
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
	out = runRaw(t, m, m.update(keyMsg("esc"))) // the "opened" line is no answer to esc

	if m.docS() != nil {
		t.Fatal("esc should close the document")
	}
	if out != render.KittyDelete(1) {
		t.Fatalf("closing wrote %q, want the delete of image 1", out)
	}
}

// fakeTerminal is the program's terminal: it records what the program
// writes and, once it sees the graphics query, types answer into the
// program's input, as a real terminal answers.
type fakeTerminal struct {
	in     *io.PipeWriter
	answer string
	mu     sync.Mutex
	out    strings.Builder
	asked  bool
}

func (f *fakeTerminal) Write(b []byte) (int, error) {
	f.mu.Lock()
	f.out.Write(b)
	ask := !f.asked && strings.Contains(f.out.String(), "\x1b_Gi=31,")
	if ask {
		f.asked = true
	}
	f.mu.Unlock()
	if ask && f.answer != "" {
		go f.in.Write([]byte(f.answer)) //nolint:errcheck // the pipe closes with the test
	}
	return len(b), nil
}

// modeProbe reads the image mode and whether the query still waits, from
// inside the program.
type modeProbe struct{ Model }

type modeProbeMsg struct{ reply chan [2]string }

func (p modeProbe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if pm, ok := msg.(modeProbeMsg); ok {
		pending := "answered"
		if p.m.imgQuery.pending {
			pending = "pending"
		}
		pm.reply <- [2]string{p.m.e.renderer.ImageMode(), pending}
		return p, nil
	}
	m, cmd := p.Model.Update(msg)
	return modeProbe{m.(Model)}, cmd
}

// The auto query on a real tea.Program, the terminal's bytes going through
// Bubble Tea's own input decoder: a kitty terminal's answer picks kitty; a
// terminal that only answers DA1, or says nothing, gets blocks, the
// silent one after the bounded wait.
func TestImages_AutoQueryThroughTheProgramWithAFakeTerminal(t *testing.T) {
	for _, tt := range []struct {
		name, answer, want string
	}{
		{"kitty", "\x1b_Gi=31;OK\x1b\\\x1b[?62;4;22c", render.ImagesKitty},
		{"da1 only", "\x1b[?62;4;22c", render.ImagesBlocks},
		{"silent", "", render.ImagesBlocks},
	} {
		t.Run(tt.name, func(t *testing.T) {
			inR, inW := io.Pipe()
			term := &fakeTerminal{in: inW, answer: tt.answer}
			opt := testOptions(newFakeAgent(t))
			opt.Images = "auto"
			p := tea.NewProgram(modeProbe{New(opt)}, tea.WithInput(inR), tea.WithOutput(term),
				tea.WithWindowSize(100, 30), tea.WithoutSignals(), tea.WithColorProfile(colorprofile.NoTTY))
			done := make(chan error, 1)
			go func() { _, err := p.Run(); done <- err }()
			defer func() {
				p.Quit()
				inW.Close()
				if err := <-done; err != nil {
					t.Errorf("program: %v", err)
				}
			}()
			var got [2]string
			deadline := testbudget.Until(t, 10*time.Second)
			for time.Now().Before(deadline) {
				reply := make(chan [2]string, 1)
				p.Send(modeProbeMsg{reply})
				select {
				case got = <-reply:
				case <-time.After(2 * time.Second):
				}
				if got[1] == "answered" && (tt.want != render.ImagesKitty || got[0] == tt.want) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if got[1] != "answered" {
				t.Fatalf("the query never ended (mode %q)", got[0])
			}
			if got[0] != tt.want {
				t.Fatalf("mode %q, want %q", got[0], tt.want)
			}
			term.mu.Lock()
			asked := term.asked
			term.mu.Unlock()
			if !asked {
				t.Fatal("the program never sent the graphics query")
			}
		})
	}
}
