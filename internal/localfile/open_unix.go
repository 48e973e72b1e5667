//go:build unix

package localfile

import (
	"os"
	"syscall"
)

// nonBlock keeps an open of a FIFO (swapped in after the Stat) from
// waiting for a writer.
const nonBlock = syscall.O_NONBLOCK

// openNoBlock opens p read-only without blocking on a FIFO and without
// following a final symlink (p has its symlinks resolved already).
func openNoBlock(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}
