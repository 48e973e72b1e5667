package main

import (
	"strings"
	"testing"
)

// TestVersion_AnywhereOnTheLine: -v/--version with a command says the same
// thing wherever it is placed (flags go anywhere), not "unknown shorthand
// flag: 'v'" after the command; serve's own -v stays its --verbose.
func TestVersion_AnywhereOnTheLine(t *testing.T) {
	for _, args := range [][]string{{"-v", "ls", "servers"}, {"ls", "servers", "-v"}, {"ls", "--version", "servers"}, {"--timeout", "2s", "ls", "-v"}} {
		code, out, errOut := runCLI(t, args...)
		if code != exitUsage || out != "" || !strings.HasPrefix(errOut, `dpe-tui: --version is used alone, not with "ls"`) {
			t.Errorf("%q: exit %d, %q %q", args, code, out, errOut)
		}
	}
	if code, out, errOut := runCLI(t, "serve", "-v", "--help"); code != exitOK || !strings.Contains(out, "--verbose") {
		t.Errorf("serve -v --help: exit %d, %q", code, errOut)
	}
}
