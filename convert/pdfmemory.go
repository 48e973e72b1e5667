package convert

import (
	"context"

	"github.com/tetratelabs/wazero/experimental"
)

// A PDFium instance's linear memory grows by memory.grow; wazero's own
// growth appends to the Go slice, so at each grow the old memory and a
// new one of 1.25 times its size are live together: an instance limited
// to 256 MiB peaked at 700 MiB of RSS before its limit error (1.0–1.14 GB
// at 512 MiB). pdfMemory instead reserves the instance's whole limit
// once and grows within it, never copying: the peak is what PDFium
// touches, at most pdfMemoryLimit per instance. The buffer comes from the
// Go heap, not a private mmap, because an instance is killed from another
// goroutine (guard's deadline) while PDFium may still run on it: the
// garbage collector frees it once nothing uses it, never under a running
// call. Untouched pages of a fresh large allocation are not resident.
type pdfMemory struct{ buf []byte }

// pdfMemoryContext is the context PDFium's modules are instantiated with:
// it carries the allocator.
func pdfMemoryContext() context.Context {
	return experimental.WithMemoryAllocator(context.Background(), experimental.MemoryAllocatorFunc(newPDFMemory))
}

// newPDFMemory reserves max bytes (never more than pdfMemoryLimit, which
// wazero's memory limit makes max already).
func newPDFMemory(_, max uint64) experimental.LinearMemory {
	return &pdfMemory{buf: make([]byte, 0, min(max, pdfMemoryLimit))}
}

// Reallocate grows the memory in place; past the reservation it fails,
// and PDFium's malloc sees an ordinary out-of-memory.
func (m *pdfMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(m.buf)) {
		return nil
	}
	m.buf = m.buf[:size]
	return m.buf
}

// Free drops the reservation; the collector frees it when the instance
// no longer refers to it.
func (m *pdfMemory) Free() { m.buf = nil }
