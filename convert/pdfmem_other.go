//go:build !unix

package convert

import "github.com/tetratelabs/wazero/experimental"

// pdfMemoryAllocator is wazero's own where there is no mmap.
func pdfMemoryAllocator() experimental.MemoryAllocator { return nil }
