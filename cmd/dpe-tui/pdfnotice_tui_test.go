package main

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/spf13/pflag"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/ui"
)

// noticeCounter passes messages to the program and counts the notices.
type noticeCounter struct {
	to msgSender
	mu sync.Mutex
	n  map[string]int
}

func (c *noticeCounter) Send(msg tea.Msg) {
	if n, ok := msg.(ui.NoticeMsg); ok {
		c.mu.Lock()
		c.n[n.Text]++
		c.mu.Unlock()
	}
	c.to.Send(msg)
}

func (c *noticeCounter) count(text string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[text]
}

// TestTUI_PDFShowsTheEngineNoticeOnce: `dpe-tui open FILE.pdf` on a
// machine whose PDF engine was never compiled says so on the status line,
// beside the open it slows down, once; the next TUI (the engine compiled)
// does not say it again. The model is the one startTUI runs (tuiOptions),
// driven through teatest.
func TestTUI_PDFShowsTheEngineNoticeOnce(t *testing.T) {
	coldPDFCache(t) // a machine that never compiled PDFium
	run := func(wantNotices int) {
		t.Helper()
		// Each run opens the file afresh: the first run's place (page 2)
		// is not restored in the second.
		t.Setenv("XDG_STATE_HOME", t.TempDir())
		l, notice, done := startOpenTUI(t, "../../convert/testdata/pdf/twocolumns.pdf", 80, 24)
		defer done()
		counter := &noticeCounter{to: l.tm, n: map[string]int{}}
		notice.to(counter)
		if wantNotices > 0 {
			// On the status line while the open it slows down runs.
			l.waitUntil("the notice beside the open", func(f string) bool {
				lines := strings.Split(f, "\n")
				status := lines[len(lines)-2]
				return strings.Contains(status, convert.PDFEngineNotice+" · converting twocolumns.pdf")
			})
		}
		l.waitFor("page 1/")
		l.waitUntil("every page converted", func(f string) bool { return !strings.Contains(f, "esc cancels") })
		l.key(tea.KeyPressMsg{Code: ']', Text: "]"}) // the next page converts too
		l.waitFor("page 2/")
		time.Sleep(100 * time.Millisecond)
		if got := counter.count(convert.PDFEngineNotice); got != wantNotices {
			t.Errorf("the engine notice was sent %d times, want %d", got, wantNotices)
		}
		if f := l.frame(); strings.Contains(f, convert.PDFEngineNotice) {
			t.Errorf("the notice stays after the open:\n%s", f)
		}
		l.quit()
	}
	run(1)
	run(0) // compiled now: nothing to announce
}

// startOpenTUI is the model `dpe-tui open FILE` runs (tuiOptions with the
// command's default flags), driven through teatest at w×h with no colour;
// notice is where the program's notices go, done what open does after it.
func startOpenTUI(t *testing.T, file string, w, h int) (l *localTUI, notice *tuiNotice, done func()) {
	t.Helper()
	var f tuiFlags
	fs := pflag.NewFlagSet("dpe-tui", pflag.ContinueOnError)
	f.globalFlags.register(fs)
	f.define(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	f.Embedded.cmd = "open"
	notice = &tuiNotice{}
	opt, done, err := tuiOptions(&f, file, nil, nil, notice)
	if err != nil {
		t.Fatal(err)
	}
	opt.Width, opt.Height = w, h
	tm := teatest.NewTestModel(t, frameProbe{ui.New(opt)}, teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	return &localTUI{t: t, tm: tm}, notice, done
}
