package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/internal/hostilepeer"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/ui"
)

// loopScript is the hostile suite's repeating server: page 1 hands out
// cursor "c1", page 2 hands out "c1" again.
func loopScript() hostilepeer.Script {
	return hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "evil", Servers: []string{"loop"},
		Resources: func(server, cursor string) hostilepeer.Reply {
			return hostilepeer.Page("c1", hostilepeer.Resource("dpe://org.evil.loop/"+cursor+"p", "p"))
		},
	}}}
}

// Both listings run on client.Paging: ls's loop (client.Pager) and the
// browser's resources screen (one tea.Cmd per page, Paging in Update).
// Against a server that repeats a cursor both stop after the same two
// get_resources, each saying so.
func TestPaging_LsAndTUIStopAtTheSameRepeatedCursor(t *testing.T) {
	srv, err := hostilepeer.Start(loopScript())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, client.Options{URL: srv.URL, Office: srv.Office, Name: "paging", ConnectTimeout: 10 * time.Second, RequestTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// ls's path.
	p := c.Pager("evil", "loop", client.PagerOptions{})
	var got []string
	for {
		page, err := p.Next(ctx)
		if err != nil {
			var ce *client.CursorError
			if !errors.As(err, &ce) || !errors.Is(err, client.ErrRepeatedCursor) {
				t.Fatalf("Pager stopped with %v, want a repeated cursor", err)
			}
			if ce.Pages != 2 || ce.Loaded != 2 || ce.Cursor != "c1" {
				t.Fatalf("Pager error %+v, want cursor c1 after 2 pages and 2 resources", ce)
			}
			break
		}
		if err == io.EOF {
			t.Fatal("the looping listing looked complete")
		}
		for _, r := range page.Resources {
			got = append(got, r.URI)
		}
	}
	if len(got) != 2 || got[1] != "dpe://org.evil.loop/c1p" {
		t.Fatalf("Pager listed %q", got)
	}
	lsCalls := srv.CallsTo("evil", protocol.EventGetResources)
	if lsCalls != 2 {
		t.Fatalf("ls path: %d get_resources, want 2", lsCalls)
	}

	// The browser's path: M (load all) on the resources screen.
	m := ui.New(ui.Options{Agent: c, Theme: "dark", Width: 100, Height: 30, StatusTimeout: -1})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.NoTTY)))
	wait := func(want string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(want)) },
			teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	wait("evil")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("loop")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("1 loaded")
	tm.Send(tea.KeyPressMsg{Code: 'M', Text: "M"})
	wait(`server repeated cursor "c1" at page 2; stopped`)
	if n := srv.CallsTo("evil", protocol.EventGetResources) - lsCalls; n != 2 {
		t.Errorf("TUI path: %d get_resources, want 2", n)
	}
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}

// Paging is pure: it decides from the pages it is given.
func TestPaging_CapsAndBudgetsAreTypedErrors(t *testing.T) {
	page := func(next string, n, raw int) *client.ResourcePage {
		p := &client.ResourcePage{NextCursor: next, Raw: bytes.Repeat([]byte(" "), raw)}
		for range n {
			p.Resources = append(p.Resources, client.Resource{})
		}
		return p
	}
	tests := []struct {
		name  string
		opt   client.PagerOptions
		pages []*client.ResourcePage
		want  error
		after int // pages added when it stopped
		kept  int // resources kept, when not 0
	}{
		{"end", client.PagerOptions{}, []*client.ResourcePage{page("a", 1, 1), page("", 1, 1)}, nil, 2, 0},
		{"same cursor", client.PagerOptions{}, []*client.ResourcePage{page("a", 1, 1), page("a", 1, 1)}, client.ErrRepeatedCursor, 2, 0},
		{"older cursor", client.PagerOptions{}, []*client.ResourcePage{page("a", 1, 1), page("b", 1, 1), page("a", 1, 1)}, client.ErrRepeatedCursor, 3, 0},
		{"page cap", client.PagerOptions{MaxPages: 2}, []*client.ResourcePage{page("a", 1, 1), page("b", 1, 1), page("c", 1, 1)}, client.ErrPageCap, 2, 0},
		{"resource budget", client.PagerOptions{MaxResources: 5}, []*client.ResourcePage{page("a", 3, 1), page("b", 3, 1), page("c", 3, 1)}, client.ErrResourceBudget, 2, 5},
		{"resource budget on the last page", client.PagerOptions{MaxResources: 5}, []*client.ResourcePage{page("a", 3, 1), page("", 3, 1)}, client.ErrResourceBudget, 2, 5},
		{"resource budget met by the last page", client.PagerOptions{MaxResources: 5}, []*client.ResourcePage{page("a", 3, 1), page("", 2, 1)}, nil, 2, 5},
		{"byte budget", client.PagerOptions{MaxBytes: 100}, []*client.ResourcePage{page("a", 1, 60), page("b", 1, 60), page("c", 1, 1)}, client.ErrByteBudget, 2, 0},
		{"last page at the cap", client.PagerOptions{MaxPages: 2}, []*client.ResourcePage{page("a", 1, 1), page("", 1, 1)}, nil, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := client.NewPaging("c", "s", tt.opt)
			var err error
			added := 0
			for _, p := range tt.pages {
				if w.Done() {
					break
				}
				added++
				err = w.Add(p, nil)
				if p.Resources[0].PageNo != added {
					t.Fatalf("page %d numbered its resources %d", added, p.Resources[0].PageNo)
				}
			}
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("stopped with %v, want %v", err, tt.want)
			}
			if added != tt.after || !w.Done() {
				t.Fatalf("%d pages added (done %v), want %d", added, w.Done(), tt.after)
			}
			kept := 0
			for _, p := range tt.pages[:added] {
				kept += len(p.Resources)
			}
			if tt.kept != 0 && (w.Loaded() != tt.kept || kept != tt.kept) {
				t.Fatalf("kept %d (pages hold %d), want %d", w.Loaded(), kept, tt.kept)
			}
			if tt.want != nil && !errors.Is(w.Err(), tt.want) {
				t.Fatalf("Err = %v, not sticky", w.Err())
			}
		})
	}
	// An oversized next_cursor refused by the client keeps the page and
	// ends the listing with that error.
	w := client.NewPaging("c", "s", client.PagerOptions{})
	refused := &client.CursorError{Err: client.ErrCursorTooLong, Cursor: "x", Limit: 1}
	if err := w.Add(page("", 1, 1), refused); !errors.Is(err, client.ErrCursorTooLong) || w.Loaded() != 1 || !w.Done() {
		t.Fatalf("refused cursor: err %v, loaded %d, done %v", err, w.Loaded(), w.Done())
	}
}
