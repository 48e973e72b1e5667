//go:build unix

package config

import (
	"os/exec"
	"syscall"
)

// inOwnGroup runs cmd as the leader of a new process group and makes
// cancelling it kill the whole group: `sh -c` forks what it runs, and
// killing sh alone would leave that child (a hung `pass`, a `sleep`)
// running with nobody waiting for it.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
}

// killGroup kills cmd's process group; called only while a member is
// known to live (cmd itself, or a child holding its pipes), so the group
// id cannot have been reused.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
