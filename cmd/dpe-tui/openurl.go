package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"time"
)

// openURL hands an http(s) URL the user confirmed to the system's opener
// (open on macOS, xdg-open elsewhere), as its one argument: no shell
// reads it. The opener returns once the browser has it; a stuck one is
// given up after a while.
func openURL(ctx context.Context, url string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("no system opener: %s is not installed", name)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, url)
	if out, err := cmd.CombinedOutput(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(out) > 0 {
			return fmt.Errorf("%s: %s", name, firstLine(string(out), 200))
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
