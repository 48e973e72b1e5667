//go:build unix

package dpe

import (
	"os"
	"syscall"
)

// mapReadOnly maps size bytes of fh privately and read-only.
func mapReadOnly(fh *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(fh.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE)
}

func unmapFile(b []byte) error { return syscall.Munmap(b) }

// dropResident releases the pages of b (page-aligned, from a mapping) from
// this process's memory; reading them again faults them back in from the
// file.
func dropResident(b []byte) { _ = syscall.Madvise(b, syscall.MADV_DONTNEED) }
