package ui

import (
	"time"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// Every asynchronous result is a named message carrying the op it answers.

type errMsg struct {
	opID  int
	what  string
	err   error
	panic bool
}

type connectedMsg struct {
	opID  int
	agent Agent
}

type connectFailedMsg struct {
	opID int
	err  error
}

type agentEventMsg struct{ ev client.Event }

type agentClosedMsg struct{}

type computersMsg struct {
	opID      int
	computers []protocol.SessionInfo
}

type configMsg struct {
	opID     int
	computer string
	cfg      *client.Config
	err      error
}

type resourcesPageMsg struct {
	opID     int
	computer string
	server   string
	cursor   string
	page     *client.ResourcePage
	all      bool // part of "load all"
	duration time.Duration
}

type openedMsg struct {
	opID     int
	opened   *dpe.Opened
	res      *client.Resource
	uri      string
	duration time.Duration
	opener   *dpe.Opener
	trace    *traceLog
}

type pageLoadedMsg struct {
	opID int
	page int
	err  error
	// jump is the element to select once loaded (-1: keep at top).
	jump int
}

type searchStepMsg struct {
	opID  int
	page  int
	hits  []hit
	err   error
	query string
}

type validatedMsg struct {
	opID     int
	findings []dpe.Finding
	duration time.Duration
}

type savedMsg struct {
	opID int
	path string
	what string
}

type contentRenderedMsg struct {
	opID  int
	lines []string
	width int
}

type clearStatusMsg struct{ id int }
