//go:build unix

package dpe

import (
	"os"
	"syscall"
)

// openNoBlock opens p read-only without blocking on a FIFO and without
// following a final symlink (the caller resolved symlinks already).
func openNoBlock(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}
