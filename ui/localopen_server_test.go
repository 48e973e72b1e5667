package ui

import (
	"slices"
	"testing"
)

// TestLocal_OpenBarOnAServerScreenReadsOnThatServer: a URI typed with o
// on a local server's screen is read by that server (several may list
// URIs like it); typed on the computers screen, by the one that lists it.
func TestLocal_OpenBarOnAServerScreenReadsOnThatServer(t *testing.T) {
	f, l := localOffice(t)
	l.contents["test://template/text/7"] = []LocalContent{{URI: "test://template/text/7", MIMEType: "text/plain", Text: "seven"}}
	opt := testOptions(f)
	opt.Local = l
	s := start(t, opt)
	s.waitFor("local")
	s.keys("o")
	s.typeText("test://template/text/7")
	s.waitFor("enter reads it from your MCP servers")
	s.keys("enter")
	s.waitFor("seven")
	s.keys("esc")
	s.toLocalFiles()
	s.keys("o")
	s.typeText("test://template/text/7")
	s.waitFor("enter reads it from your MCP servers")
	s.keys("enter")
	s.waitFor("seven")
	l.mu.Lock()
	reads := slices.Clone(l.reads)
	l.mu.Unlock()
	want := []string{" test://template/text/7", "files test://template/text/7"}
	if !slices.Equal(reads, want) {
		t.Fatalf("reads %q, want %q", reads, want)
	}
	s.final()
}
