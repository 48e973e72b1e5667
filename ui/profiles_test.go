package ui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/config"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// profileAgent is a fake agent for one profile: its own server URL and
// office, and a Close the UI must call when it switches away.
type profileAgent struct {
	*fakeAgent
	url, office string
	once        sync.Once
	closed      chan struct{}
}

func (a *profileAgent) URL() string    { return a.url }
func (a *profileAgent) Office() string { return a.office }
func (a *profileAgent) Close() error {
	a.once.Do(func() { close(a.closed) })
	return nil
}

func (a *profileAgent) isClosed() bool {
	select {
	case <-a.closed:
		return true
	default:
		return false
	}
}

// twoProfiles is a config file with profiles home and lab, an agent for
// each (home: the usual office; lab: one computer, gpu-rig) and options
// connected through home whose ConnectProfile dials them by name.
func twoProfiles(t *testing.T) (opt Options, home, lab *profileAgent) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	text := `default = "home"
[profiles.home]
url = "http://127.0.0.1:7410"
office = "demo"
[profiles.lab]
url = ["http://127.0.0.1:7420/smcp?token=secret", "http://127.0.0.1:7421"]
office = "lab"
name = "bench"
`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	home = &profileAgent{fakeAgent: newFakeAgent(t), url: "http://127.0.0.1:7410", office: "demo", closed: make(chan struct{})}
	labFake := newFakeAgent(t)
	labFake.computers = []protocol.SessionInfo{{SID: "s9", Name: "gpu-rig", Role: protocol.RoleComputer, OfficeID: "lab", A2CVersion: "0.3.0"}}
	labFake.configs = map[string]*client.Config{"gpu-rig": {Servers: []client.ServerConfig{{Name: "weights", Type: "stdio"}}}}
	lab = &profileAgent{fakeAgent: labFake, url: "http://127.0.0.1:7420", office: "lab", closed: make(chan struct{})}
	opt = testOptions(home)
	opt.Profiles = f
	opt.Profile = "home"
	opt.ConnectProfile = func(ctx context.Context, name string) (Agent, error) {
		switch name {
		case "home":
			return home, nil
		case "lab":
			return lab, nil
		}
		return nil, errors.New("no such profile")
	}
	return opt, home, lab
}

// TestProfiles_PSwitchesToTheChosenProfileWithoutRestarting drives the
// program: P lists the profiles, enter on lab connects to it, and the
// office screen shows lab's computers and name; home is closed.
func TestProfiles_PSwitchesToTheChosenProfileWithoutRestarting(t *testing.T) {
	opt, home, lab := twoProfiles(t)
	s := start80(t, opt)
	s.waitFor("2 enabled")
	s.waitFor("profile home")
	if f := s.frame(); !strings.Contains(f, "P switch profile") {
		t.Fatalf("the footer does not offer P:\n%s", f)
	}
	s.keys("P")
	s.waitFor("Profiles")
	s.idle()
	f := s.frame()
	if strings.Contains(f, "token=secret") || strings.ContainsRune(f, '\x1b') {
		t.Fatalf("picker shows a URL secret or an escape:\n%s", f)
	}
	// The file's temp path is cut by the width at a place that varies.
	masked := tmpPrefix.ReplaceAllString(strings.ReplaceAll(f, filepath.Dir(opt.Profiles.Path), "<dir>"), "<tmp>…")
	golden.RequireEqual(t, normalize(masked))

	s.keys("down", "enter")
	s.waitFor("gpu-rig")
	s.waitFor("profile lab")
	s.waitFor("switched to profile lab")
	f = s.frame()
	if strings.Contains(f, "build-box") || !strings.Contains(f, "office lab") || !strings.Contains(f, "1 enabled") {
		t.Fatalf("office screen is not lab's:\n%s", f)
	}
	select {
	case <-home.closed:
	case <-time.After(testbudget.Left(t, 10*time.Second)):
		t.Fatal("the replaced agent was not closed")
	}
	if lab.isClosed() {
		t.Fatal("the new agent was closed")
	}
	// And back again: the picker marks lab as current now.
	s.keys("P")
	s.waitUntil("lab marked current", func(f string) bool { return strings.Contains(f, "● lab") })
	s.keys("esc")
	s.final()
}

// TestProfiles_FailedSwitchKeepsTheConnection: a profile that cannot be
// reached is one error line; the office and profile stay as they were.
func TestProfiles_FailedSwitchKeepsTheConnection(t *testing.T) {
	opt, home, _ := twoProfiles(t)
	opt.ConnectProfile = func(ctx context.Context, name string) (Agent, error) {
		return nil, errors.New("dial http://127.0.0.1:7420: connection refused")
	}
	s := start80(t, opt)
	s.waitFor("2 enabled")
	s.keys("P", "down", "enter")
	s.waitFor("connection refused")
	s.idle()
	f := s.frame()
	if !strings.Contains(f, "build-box") || !strings.Contains(f, "profile home") || strings.Contains(f, "Profiles ·") {
		t.Fatalf("a failed switch changed the screen:\n%s", f)
	}
	if home.isClosed() {
		t.Fatal("a failed switch closed the working agent")
	}
	// The old state is usable: r still lists home's office.
	s.keys("r")
	s.waitFor("laptop")
	s.final()
}

// TestProfiles_EventsOfTheReplacedAgentAreDropped: after a switch, what
// the old agent's listener still delivers (a notification, its close)
// must not change the new office.
func TestProfiles_EventsOfTheReplacedAgentAreDropped(t *testing.T) {
	opt, home, lab := twoProfiles(t)
	home.noEvents, lab.noEvents = true, true
	m := New(opt).m
	listOffice(t, m)
	run(t, m, m.update(switchProfileMsg{name: "lab"}))
	if m.e.agent != Agent(lab) || m.e.opt.Profile != "lab" || !home.isClosed() {
		t.Fatalf("switch did not install lab: agent %v profile %q", m.e.agent, m.e.opt.Profile)
	}
	if rows := m.officeS().rows; len(rows) != 1 || rows[0].info.Name != "gpu-rig" {
		t.Fatalf("office rows after switch = %+v", rows)
	}
	old := m.profiles.gen - 1
	run(t, m, m.update(agentEventMsg{gen: old, ev: client.NotifyEvent{Name: protocol.NotifyEnterOffice, Computer: "ghost"}}))
	run(t, m, m.update(agentEventMsg{gen: old, closed: true}))
	if strings.Contains(frame(m), "ghost") || m.e.conn.State != client.Connected {
		t.Fatalf("an event of the replaced agent reached the new office (state %v):\n%s", m.e.conn.State, frame(m))
	}
	// The current agent's own events still apply.
	run(t, m, m.update(agentEventMsg{gen: m.profiles.gen, ev: client.NotifyEvent{Name: protocol.NotifyLeaveOffice, Computer: "gpu-rig"}}))
	if len(m.officeS().rows) != 0 {
		t.Fatalf("the current agent's leave_office was dropped: %+v", m.officeS().rows)
	}
	// And its close: the one listener carries the generation for both.
	run(t, m, m.update(agentEventMsg{gen: m.profiles.gen, closed: true}))
	if m.e.conn.State != client.Offline {
		t.Fatalf("the current agent's close left the state %v", m.e.conn.State)
	}
}

// TestProfiles_CancelledSwitchClosesTheLateAgent: esc while connecting
// keeps the old agent, and the agent the dial still returned is closed
// rather than leaked.
func TestProfiles_CancelledSwitchClosesTheLateAgent(t *testing.T) {
	opt, home, lab := twoProfiles(t)
	home.noEvents, lab.noEvents = true, true
	m := New(opt).m
	listOffice(t, m)
	press(t, m, "P", "down")
	if !overlayIs[*profilePicker](m) {
		t.Fatal("P did not open the picker")
	}
	dial := m.update(keyMsg("enter")) // not run yet: the dial is "slow"
	if !strings.Contains(frame(m), "connecting to profile lab") {
		t.Fatalf("no progress line while connecting:\n%s", frame(m))
	}
	press(t, m, "esc")
	run(t, m, dial)
	if m.e.agent != Agent(home) || m.e.opt.Profile != "home" || home.isClosed() {
		t.Fatalf("a cancelled switch replaced the agent (profile %q)", m.e.opt.Profile)
	}
	if !lab.isClosed() {
		t.Fatal("the agent of a cancelled switch was not closed")
	}
}

// TestProfiles_PWithoutProfilesDoesNothing: no config (or no way to
// dial) means no picker and no P in the footer.
func TestProfiles_PWithoutProfilesDoesNothing(t *testing.T) {
	opt, _, _ := twoProfiles(t)
	opt.ConnectProfile = nil
	opt.Agent.(*profileAgent).noEvents = true
	m := New(opt).m
	listOffice(t, m)
	press(t, m, "P")
	if m.overlay != nil || strings.Contains(frame(m), "switch profile") || strings.Contains(frame(m), "P switches") {
		t.Fatalf("P acted without a way to dial:\n%s", frame(m))
	}
}

// oneAgentOffice is a fake server that, like the real one, lets one agent
// at a time into an office: a join while the office is taken fails.
type oneAgentOffice struct {
	t        *testing.T
	mu       sync.Mutex
	occupant *profileAgent
	refuse   map[string]bool // profiles whose dial fails for another reason
	dials    []string
}

func (o *oneAgentOffice) join(name string) (Agent, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.dials = append(o.dials, name)
	if o.occupant != nil && !o.occupant.isClosed() {
		return nil, errors.New("office keyed already has an agent")
	}
	if o.refuse[name] {
		return nil, errors.New("dial http://127.0.0.1:7410: connection refused")
	}
	a := &profileAgent{fakeAgent: newFakeAgent(o.t), url: "http://127.0.0.1:7410", office: "keyed", closed: make(chan struct{})}
	o.occupant = a
	return a, nil
}

// sameOfficeProfiles: profiles a and b on one server and office, the
// program connected through a.
func sameOfficeProfiles(t *testing.T) (Options, *oneAgentOffice) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	text := "[profiles.a]\nurl = \"http://127.0.0.1:7410\"\noffice = \"keyed\"\nname = \"na\"\n" +
		"[profiles.b]\nurl = \"http://127.0.0.1:7410/\"\noffice = \"keyed\"\nname = \"nb\"\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	office := &oneAgentOffice{t: t, refuse: map[string]bool{}}
	first, err := office.join("a")
	if err != nil {
		t.Fatal(err)
	}
	opt := testOptions(first)
	opt.Profiles, opt.Profile = f, "a"
	opt.ConnectProfile = func(_ context.Context, name string) (Agent, error) { return office.join(name) }
	return opt, office
}

// TestProfiles_SwitchInTheSameOfficeLeavesFirst: the server refuses a
// second agent in an office, so a switch to a profile on the same server
// and office closes the current agent before it dials.
func TestProfiles_SwitchInTheSameOfficeLeavesFirst(t *testing.T) {
	opt, office := sameOfficeProfiles(t)
	old := opt.Agent.(*profileAgent)
	s := start80(t, opt)
	s.waitFor("2 enabled")
	s.keys("P")
	s.waitFor("Profiles")
	s.keys("down", "enter")
	s.waitFor("switched to profile b")
	s.waitFor("profile b")
	if !old.isClosed() {
		t.Fatal("the agent of profile a was not closed")
	}
	if f := s.frame(); strings.Contains(f, "already has an agent") || !strings.Contains(f, "build-box") {
		t.Fatalf("after a switch in the same office:\n%s", f)
	}
	s.final()
	if office.occupant.isClosed() {
		t.Fatal("the new agent was closed")
	}
}

// TestProfiles_FailedSwitchInTheSameOfficeOffersReconnect: when the dial
// after leaving fails, the screen says so and r reconnects the profile
// left; the user is never left without a way back.
func TestProfiles_FailedSwitchInTheSameOfficeOffersReconnect(t *testing.T) {
	opt, office := sameOfficeProfiles(t)
	office.refuse["b"] = true
	s := start80(t, opt)
	s.waitFor("2 enabled")
	s.keys("P")
	s.waitFor("Profiles")
	s.keys("down", "enter")
	s.waitFor("could not connect")
	s.waitFor("r reconnects profile a")
	s.keys("r")
	s.waitFor("switched to profile a")
	s.waitFor("2 enabled")
	if f := s.frame(); !strings.Contains(f, "profile a") || !strings.Contains(f, "build-box") {
		t.Fatalf("after reconnecting:\n%s", f)
	}
	s.final()
	office.mu.Lock()
	defer office.mu.Unlock()
	if want := []string{"a", "b", "a"}; !slices.Equal(office.dials, want) {
		t.Errorf("dials = %v, want %v", office.dials, want)
	}
}

// TestProfiles_PickerRereadsTheFile: a profile added while running shows
// the next time P opens, and a file broken meanwhile is its one-line
// error in the picker.
func TestProfiles_PickerRereadsTheFile(t *testing.T) {
	opt, _, _ := twoProfiles(t)
	path := opt.Profiles.Path
	s := start80(t, opt)
	s.waitFor("2 enabled")
	s.keys("P")
	s.waitFor("Profiles")
	s.waitFor("lab")
	s.keys("esc")
	add := "\n[profiles.added]\nurl = \"http://127.0.0.1:7430\"\noffice = \"late\"\n"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, add...), 0o600); err != nil {
		t.Fatal(err)
	}
	s.keys("P")
	s.waitFor("office late")
	s.keys("esc")
	if err := os.WriteFile(path, []byte("[profiles.home]\nmouse = \"yes\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.keys("P")
	s.waitFor("key profiles.home.mouse")
	if f := s.frame(); strings.Contains(f, "office late") {
		t.Fatalf("the picker lists profiles of a refused file:\n%s", f)
	}
	s.keys("esc")
	s.final()
}
