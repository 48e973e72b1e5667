package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// endlessCursors is a hostile server: every page has n resources and a
// fresh next cursor, forever.
func endlessCursors(n int, raw int) func(cursor string) *client.ResourcePage {
	page := 0
	return func(cursor string) *client.ResourcePage {
		page++
		p := &client.ResourcePage{NextCursor: fmt.Sprintf("c%d-%s", page, strings.Repeat("x", 64))}
		for i := range n {
			p.Resources = append(p.Resources, res(fmt.Sprintf("dpe://h/p%d-%d", page, i), "r", "", nil))
		}
		if raw > 0 {
			p.Raw = json.RawMessage(strings.Repeat(" ", raw))
		}
		return p
	}
}

func TestResources_LoadAllStopsAtTheResourceBudget(t *testing.T) {
	f := newFakeAgent(t)
	f.resourcesFn = endlessCursors(10, 0)
	m := newTestModel(t, f)
	m.e.opt.MaxListedResources = 50
	m.stack = append(m.stack, newResourcesScreen(m.e, "laptop", "endless", "endless"))
	press(t, m, "M")
	if want := "listing budget reached: 50 resources (limit 50); stopped"; m.resS().stop != want {
		t.Fatalf("stop = %q, want %q", m.resS().stop, want)
	}
	if f.resourceCalls != 5 {
		t.Fatalf("%d get_resources calls, want 5 (10 a page up to 50)", f.resourceCalls)
	}
	if !strings.Contains(frame(m), "listing budget reached") {
		t.Fatalf("the budget is not named on screen:\n%s", frame(m))
	}
	press(t, m, "M") // the listing is over: M does not ask again
	if f.resourceCalls != 5 {
		t.Fatalf("M after the stop asked again: %d calls", f.resourceCalls)
	}
}

func TestResources_LoadAllStopsAtTheByteBudget(t *testing.T) {
	f := newFakeAgent(t)
	f.resourcesFn = endlessCursors(1, 64<<10) // 64 KiB acks
	m := newTestModel(t, f)
	m.e.opt.MaxListedBytes = 1 << 20
	m.stack = append(m.stack, newResourcesScreen(m.e, "laptop", "endless", "endless"))
	press(t, m, "M")
	if want := "listing budget reached: 1.0 MiB listed (limit 1.0 MiB); stopped"; m.resS().stop != want {
		t.Fatalf("stop = %q, want %q", m.resS().stop, want)
	}
	if f.resourceCalls != 16 {
		t.Fatalf("%d get_resources calls, want 16 (64 KiB each up to 1 MiB)", f.resourceCalls)
	}
}

func TestResources_DefaultBudgetBoundsEndlessCursors(t *testing.T) {
	f := newFakeAgent(t)
	f.resourcesFn = endlessCursors(500, 0)
	m := newTestModel(t, f)
	m.stack = append(m.stack, newResourcesScreen(m.e, "laptop", "endless", "endless"))
	press(t, m, "M")
	if want := "listing budget reached: 200000 resources (limit 200000); stopped"; m.resS().stop != want {
		t.Fatalf("stop = %q, want %q", m.resS().stop, want)
	}
	if f.resourceCalls != 400 {
		t.Fatalf("%d calls, want 400", f.resourceCalls)
	}
}

// 20,000 enter_office notifications while list_room is slow make at most
// one request in flight and one queued, and the last one starts after the
// last notification, so the office ends current.
func TestOffice_NotificationStormCoalescesListRoom(t *testing.T) {
	const n = 20_000
	f := newFakeAgent(t)
	f.events = make(chan client.Event, n)
	f.computers = append(f.computers, protocol.SessionInfo{SID: "s3", Name: "zz-last", Role: protocol.RoleComputer, OfficeID: "demo", A2CVersion: "9.9.9"})
	f.computersGate = func(ctx context.Context) {
		// A slow list_room: it answers once the storm has been read.
		for len(f.events) > 0 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
	}
	for i := range n - 1 {
		f.events <- client.NotifyEvent{Name: protocol.NotifyEnterOffice, Computer: []string{"laptop", "build-box"}[i%2]}
	}
	f.events <- client.NotifyEvent{Name: protocol.NotifyEnterOffice, Computer: "zz-last"}
	// list_room's request timeout is the test's: reading 20,000
	// notifications under -race on a loaded machine took longer than the
	// default 30 s, and a list_room cut short by it answered before the
	// storm was read.
	opt := testOptions(f)
	opt.RequestTimeout = testbudget.Left(t, 30*time.Second)
	s := start(t, opt)
	s.waitFor("9.9.9")
	s.idle()
	f.mu.Lock()
	calls, left := f.computersCalls, append([]int(nil), f.eventsLeft...)
	f.mu.Unlock()
	if calls > 3 {
		t.Fatalf("%d list_room calls for %d notifications, want at most 3", calls, n)
	}
	if left[len(left)-1] != 0 {
		t.Fatalf("the last list_room began with %d notifications unread: the office may be stale", left[len(left)-1])
	}
	if err := s.tm.Quit(); err != nil {
		t.Fatal(err)
	}
}
