//go:build unix

package config

import (
	"fmt"
	"os"
	"strings"
	"syscall"
)

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// processAlive: pid exists and is not a zombie waiting to be reaped.
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: the signal check is all there is
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}

func killPID(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
