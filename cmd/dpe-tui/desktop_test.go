package main

import (
	"strings"
	"testing"
)

// --transport is gone (the polling transport is broken against every
// peer); --a2c-version takes only a spoken version.
func TestFlags_TransportRemovedAndA2CVersionChecked(t *testing.T) {
	code, _, stderr := runCLI(t, "ls", "computers", "--transport", "polling")
	if code != 2 || !strings.Contains(stderr, "transport") {
		t.Errorf("--transport: exit %d, stderr %q; want a usage error", code, stderr)
	}
	for _, v := range []string{"0.6.0", "0.5.1", "0.1.0"} {
		code, _, stderr = runCLI(t, "ls", "computers", "--a2c-version", v)
		if code != 2 || !strings.Contains(stderr, "0.2.x, 0.3.x, 0.4.x, or 0.5.0") {
			t.Errorf("--a2c-version %s: exit %d, stderr %q; want a usage error naming the spoken versions", v, code, stderr)
		}
	}
}

// ls desktop drives client:get_desktop against the demo stack: every
// computer answers with the window:// status of each of its libraries.
func TestLsDesktop_ShowsEveryComputersWindows(t *testing.T) {
	code, stdout, stderr := runCLI(t, "ls", "desktop")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"alpha     window://io.github.dpetui.library/status",
		"alpha     window://io.github.dpetui.notes/status",
		"beta      window://io.github.dpetui.archive/status",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("ls desktop lacks %q:\n%s", want, stdout)
		}
	}
}
