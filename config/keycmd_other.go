//go:build !unix

package config

import "os/exec"

// inOwnGroup: without process groups, cancelling kills sh only.
func inOwnGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
