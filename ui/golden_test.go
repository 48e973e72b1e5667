package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
)

// goldenW, goldenH is the size of the synchronous test models; the
// goldens run at goldenSizes.
const goldenW, goldenH = 100, 30

// goldenSizes are the terminal sizes every screen and overlay has a golden
// at: the classic 80×24 and a roomy 120×40.
var goldenSizes = [][2]int{{80, 24}, {120, 40}}

func testOptions(a Agent) Options {
	return Options{
		Agent:         a,
		Theme:         "dark",
		Width:         goldenW,
		Height:        goldenH,
		Now:           func() time.Time { return fixedNow },
		Fetcher:       &dpe.Fetcher{AllowFile: true},
		StatusTimeout: -1,
		SaveDir:       "",
	}
}

// session drives a real tea.Program through teatest at opt's size with a
// fixed colour profile.
type session struct {
	t  *testing.T
	tm *teatest.TestModel
}

func start(t *testing.T, opt Options) *session {
	t.Helper()
	tm := teatest.NewTestModel(t, probeModel{New(opt)},
		teatest.WithInitialTermSize(opt.Width, opt.Height),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	return &session{t: t, tm: tm}
}

// probeModel wraps the model so a test can read the current frame from
// inside the program's goroutine (no race, no dependence on how the
// renderer diffs the output stream).
type probeModel struct{ Model }

type probeMsg struct{ reply chan string }

func (p probeModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if pm, ok := msg.(probeMsg); ok {
		pm.reply <- ansi.Strip(p.Model.View().Content)
		return p, nil
	}
	m, cmd := p.Model.Update(msg)
	return probeModel{m.(Model)}, cmd
}

// waitFor waits until the current frame contains want, on one line or
// wrapped across lines: where a line breaks depends on the length of a
// temporary path or a terminal width, not on what the test is about.
func (s *session) waitFor(want string) {
	s.t.Helper()
	words := strings.Join(strings.Fields(want), " ")
	s.waitUntil(want, func(f string) bool {
		return strings.Contains(f, want) || strings.Contains(strings.Join(strings.Fields(f), " "), words)
	})
}

// idle waits until nothing is in flight (no spinner line in the status)
// and no image preview on screen is still decoding.
func (s *session) idle() {
	s.t.Helper()
	s.waitUntil("idle", func(f string) bool {
		return !strings.Contains(f, "esc cancels") && !strings.Contains(f, "preview pending")
	})
}

func (s *session) waitUntil(want string, ok func(frame string) bool) {
	s.t.Helper()
	// The wait runs to the test's deadline, five minutes at most: under
	// -race on a loaded machine a frame that takes a second alone took
	// over a minute, and a frame that never comes should fail the test
	// long before the package's timeout.
	deadline := testbudget.Until(s.t, 60*time.Second)
	if most := time.Now().Add(5 * time.Minute); most.Before(deadline) {
		deadline = most
	}
	var last string
	for time.Now().Before(deadline) {
		reply := make(chan string, 1)
		s.tm.Send(probeMsg{reply: reply})
		select {
		case last = <-reply:
			if ok(last) {
				return
			}
		case <-time.After(2 * time.Second):
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.t.Fatalf("waiting for %q: not on screen by the test's deadline; last frame:\n%s", want, last)
}

func (s *session) keys(ks ...string) {
	for _, k := range ks {
		s.tm.Send(keyMsg(k))
	}
}

func (s *session) typeText(text string) { s.tm.Type(text) }

// final quits and returns the last frame as plain text.
func (s *session) final() string {
	s.t.Helper()
	return normalize(ansi.Strip(s.finalANSI()))
}

// finalANSI quits and returns the last frame with its styling.
func (s *session) finalANSI() string {
	s.t.Helper()
	s.idle()
	if err := s.tm.Quit(); err != nil {
		s.t.Fatal(err)
	}
	fm := s.tm.FinalModel(s.t, teatest.WithFinalTimeout(testbudget.Left(s.t, 20*time.Second)))
	return fm.(probeModel).View().Content
}

// tmpPrefix is a temp path cut short: where it is cut depends on the
// durations earlier on the line, so it is masked whole.
var tmpPrefix = regexp.MustCompile(regexp.QuoteMeta(os.TempDir()) + `/[^\s…]*…`)

var durationRe = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s)\b`)

// normalize masks wall-clock durations (dpe measures decode time with the
// real clock) and trailing spaces, so goldens are stable.
func normalize(s string) string {
	s = durationRe.ReplaceAllString(s, "<dur>")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+o":
		return tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	case "ctrl+i":
		return tea.KeyPressMsg{Code: 'i', Mod: tea.ModCtrl}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// toResources opens laptop › library and waits for the first page.
func (s *session) toResources() {
	s.waitFor("build-box")
	s.waitFor("2 enabled")
	s.keys("down") // laptop (sorted after build-box)
	s.keys("enter")
	s.waitFor("stdio")
	s.keys("down", "enter") // library
	s.waitFor("4 loaded")
}

func (s *session) toDocument() {
	s.toResources()
	s.keys("enter") // Annual report
	s.waitFor("opened Annual report")
}

func TestGolden(t *testing.T) {
	// diffAgent is the fake of the running case, for the cases that need
	// its files: "diff" edits the document between the open and D,
	// "open_target" opens it as a file.
	var diffAgent *fakeAgent
	tests := []struct {
		name  string
		agent func(*fakeAgent)
		opt   func(*Options)
		drive func(s *session)
	}{
		{name: "office", drive: func(s *session) {
			s.waitFor("build-box")
			s.waitFor("2 enabled")
			s.waitFor("1 enabled")
		}},
		{name: "servers", drive: func(s *session) {
			s.waitFor("2 enabled")
			s.waitFor("1 enabled")
			s.keys("down", "enter")
			s.waitFor("disabled")
		}},
		{name: "resources_partial", drive: func(s *session) {
			s.toResources()
		}},
		{name: "resources_filtered", drive: func(s *session) {
			s.toResources()
			s.keys("a", "/")
			s.typeText("report")
			s.keys("enter")
			s.waitUntil("the filtered list", func(f string) bool { return !strings.Contains(f, "Meeting notes") && !strings.Contains(f, "filter:") })
		}},
		{name: "document", drive: func(s *session) {
			s.toDocument()
		}},
		{name: "document_table_scrolled", drive: func(s *session) {
			s.toDocument()
			s.keys("t", "$")
			s.waitFor("October")
		}},
		{name: "document_table_left", drive: func(s *session) {
			s.toDocument()
			s.keys("t", "l", "esc") // the table
			s.waitFor("left the table")
		}},
		{name: "history_back_to_other_document", drive: func(s *session) {
			// The report at page 3, then the notes opened by URI; ctrl+o
			// reopens the report at page 3.
			s.toDocument()
			s.keys(":")
			s.typeText("3")
			s.keys("enter")
			s.waitFor("page 3/3")
			s.idle()
			s.keys("o")
			s.typeText(notesURI)
			s.keys("enter")
			s.waitFor("Agreed to ship")
			s.idle()
			s.keys("ctrl+o")
			s.waitFor("page 3/3")
			s.waitFor("Appendix: revenue")
		}},
		{name: "history_forward", drive: func(s *session) {
			// :3, then < back to page 1 and > forward to page 3 again:
			// keys every terminal sends (ctrl+i is tab in many).
			s.toDocument()
			s.keys(":")
			s.typeText("3")
			s.keys("enter")
			s.waitFor("page 3/3")
			s.idle()
			s.keys("<")
			s.waitFor("page 1/3")
			s.idle()
			s.keys(">")
			s.waitFor("page 3/3")
			s.waitFor("Appendix: revenue")
		}},
		{name: "inspector", drive: func(s *session) {
			s.toDocument()
			s.keys("t", ".")
			s.waitFor("Coordinates")
		}},
		{name: "raw", drive: func(s *session) {
			s.toDocument()
			s.keys("t", "v")
			s.waitFor("Raw JSON")
		}},
		{name: "raw_search", drive: func(s *session) {
			s.toDocument()
			s.keys("t", "v")
			s.waitFor("Raw JSON")
			s.keys("/")
			s.typeText("html")
			s.keys("enter")
			s.waitFor(`for "html"`)
		}},
		{name: "raw_line_end", drive: func(s *session) {
			s.toDocument()
			s.keys("t", "v")
			s.waitFor("Raw JSON")
			s.keys("/")
			s.typeText("html")
			s.keys("enter")
			s.waitFor(`for "html"`)
			s.keys("$")
			s.waitFor("· col ")
		}},
		{name: "trace", drive: func(s *session) {
			s.toDocument()
			s.keys("]")
			s.waitFor("Regional details")
			s.keys("]")
			s.waitFor("Appendix: revenue")
			s.keys("x")
			s.waitFor("Timeline")
		}},
		{name: "trace_expired_reresolved", agent: func(f *fakeAgent) { f.expireFirst = true }, drive: func(s *session) {
			s.toDocument()
			s.keys("x")
			s.waitFor("Timeline")
		}},
		{name: "conformance", drive: func(s *session) {
			s.toDocument()
			s.keys("c")
			s.waitFor("Conformance")
		}},
		{name: "search", drive: func(s *session) {
			s.toDocument()
			s.keys("/")
			s.typeText("revenue")
			s.keys("enter")
			s.waitFor("matches for")
			s.keys("n")
			s.waitFor("match 2/")
		}},
		{name: "hit_list", drive: func(s *session) {
			s.toDocument()
			s.keys("/")
			s.typeText("revenue")
			s.keys("enter")
			s.waitFor("matches for")
			s.keys("S")
			s.waitFor("Hits for")
		}},
		{name: "table_cell", drive: func(s *session) {
			s.toDocument()
			s.keys("t", "l", "l", "enter")
			s.waitFor("Table cell")
		}},
		{name: "error_detail", drive: func(s *session) {
			s.waitFor("2 enabled")
			s.keys("o")
			s.typeText(missingURI)
			s.keys("enter")
			s.waitFor("E details")
			s.keys("E")
			s.waitFor("› error")
		}},
		{name: "copy_menu", drive: func(s *session) {
			s.toDocument()
			s.keys("y")
			s.waitFor("resource URI")
		}},
		{name: "help", drive: func(s *session) {
			s.waitFor("2 enabled")
			s.keys("?")
			s.waitFor("Keys")
		}},
		{name: "help_document", drive: func(s *session) {
			s.toDocument()
			s.keys("?")
			s.waitFor("Keys")
		}},
		{name: "help_document_end", drive: func(s *session) {
			s.toDocument()
			s.keys("?", "G")
			s.waitFor("Sidebar:")
		}},
		{name: "open_bar_invalid", drive: func(s *session) {
			s.waitFor("2 enabled")
			s.keys("o")
			s.typeText("dpe://host")
			s.waitFor("doc-ref is empty")
		}},
		{name: "markdown_content", drive: func(s *session) {
			s.toResources()
			s.keys("down", "down", "enter")
			s.waitFor("Not a DPE document")
			s.waitFor("Read me")
		}},
		{name: "reconnecting", agent: func(f *fakeAgent) {
			f.state = client.StateEvent{State: client.Reconnecting, Attempt: 3, Reason: "transport close"}
		}, drive: func(s *session) {
			s.waitFor("2 enabled")
		}},
		{name: "finder", drive: func(s *session) {
			s.waitFor("2 enabled")
			s.keys("F")
			s.waitFor("search /")
			s.typeText("revenue")
			s.keys("enter")
			s.waitFor("build-box: no Finder")
			s.waitFor("laptop: 1")
		}},
		{name: "finder_hit_then_n", drive: func(s *session) {
			s.waitFor("2 enabled")
			s.keys("F")
			s.waitFor("search /")
			s.typeText("revenue")
			s.keys("enter")
			s.waitFor("laptop: 1")
			s.idle()
			s.keys("enter")
			s.waitFor(`matches for "revenue"`)
			s.keys("n")
			s.waitFor("page 3/3")
		}},
		{name: "finding_detail", drive: func(s *session) {
			s.toDocument()
			s.keys("c")
			s.waitFor("enter details")
			s.keys("enter")
			s.waitFor("Finding 1/")
		}},
		{name: "diff", agent: func(f *fakeAgent) { diffAgent = f }, drive: func(s *session) {
			s.toDocument()
			s.idle()
			if err := os.WriteFile(diffAgent.docs[reportURI], editedReport(s.t), 0o644); err != nil {
				s.t.Fatal(err)
			}
			s.keys("D")
			s.waitFor("changed: +2 −1")
			s.keys("n")
			s.waitFor("change 1/2: changed")
		}},
		{name: "open_target", agent: func(f *fakeAgent) { diffAgent = f }, opt: func(o *Options) {
			// dpe-tui open FILE: no server, the file's document straight away.
			o.Agent = nil
			o.OpenTarget = diffAgent.docs[reportURI]
		}, drive: func(s *session) {
			s.waitFor("Revenue grew in every region.")
		}},
		{name: "error", opt: func(o *Options) {
			o.Agent = nil
			o.Connect = func(ctx context.Context) (Agent, error) {
				return nil, errors.New("dial ws://127.0.0.1:1/socket.io/: connection refused\x1b]0;pwned\x07")
			}
		}, drive: func(s *session) {
			s.waitFor("retry")
		}},
	}
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					f := newFakeAgent(t)
					if tt.agent != nil {
						tt.agent(f)
					}
					opt := testOptions(f)
					opt.Width, opt.Height = size[0], size[1]
					if tt.opt != nil {
						tt.opt(&opt)
					}
					s := start(t, opt)
					tt.drive(s)
					out := maskDir(s.final(), f)
					if strings.ContainsRune(out, '\x1b') || strings.Contains(out, "pwned\a") {
						t.Fatalf("escape sequence reached the screen:\n%q", out)
					}
					golden.RequireEqual(t, out)
				})
			}
		})
	}
}

func maskDir(out string, f *fakeAgent) string {
	out = strings.ReplaceAll(out, f.dir, "/tmp/ui-test"+strings.Repeat("-", fixedDirLen-12))
	// lines cut before the end of the temp dir
	return tmpPrefix.ReplaceAllString(out, "/tmp/…")
}

// The document screen in the dark theme with its colours: the one palette
// of screens, Glamour and chroma, as the terminal gets it.
func TestGoldenColour(t *testing.T) {
	for _, size := range goldenSizes {
		t.Run(fmt.Sprintf("document_dark_%dx%d", size[0], size[1]), func(t *testing.T) {
			f := newFakeAgent(t)
			opt := testOptions(f)
			opt.Width, opt.Height = size[0], size[1]
			s := start(t, opt)
			s.toDocument()
			out := s.finalANSI()
			if !strings.Contains(out, "\x1b[") {
				t.Fatal("the colour frame has no colour")
			}
			checkOnlyOwnSGR(t, "document", out)
			golden.RequireEqual(t, normalize(maskDir(out, f)))
		})
	}
}
