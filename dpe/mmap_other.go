//go:build !unix

package dpe

import (
	"errors"
	"os"
)

// Without mmap the page-only open reads the file like any other.
func mapReadOnly(*os.File, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) error { return nil }

func dropResident([]byte) {}
