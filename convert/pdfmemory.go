package convert

import (
	"context"
	"sync"

	"github.com/tetratelabs/wazero/experimental"
)

// A PDFium instance's linear memory grows by memory.grow; wazero's own
// growth appends to the Go slice, so at each grow the old memory and a
// new one of 1.25 times its size are live together: an instance limited
// to 256 MiB peaked at 700 MiB of RSS before its limit error (1.0–1.14 GB
// at 512 MiB). pdfMemory grows in two steps instead: a first reservation
// of pdfMemoryFirst, where ordinary documents stay, then, on the first
// grow past it, one reservation of the whole limit, copied into once and
// grown within after: the peak is the limit plus the first reservation.
// (The whole limit at once would cost every instance 256 MiB of zeroing
// and heap whenever the Go heap reuses memory, small documents too.)
// The buffers come from the Go heap, not a private mmap, because an
// instance is killed from another goroutine (guard's deadline) while
// PDFium may still run on its memory: the collector frees a buffer once
// nothing uses it, never under a running call.
// Free and Reallocate take mu for the same reason: the kill's Free runs
// while the call it stops may still be growing the memory.
type pdfMemory struct {
	mu  sync.Mutex
	buf []byte
	max uint64
}

// pdfMemoryFirst is what the first reservation of an instance's memory
// holds beyond the memory PDFium starts with (18 MiB for the build in
// use): text extraction of ordinary pages grows it by a few MiB. It is
// added to the start, not a size of its own: a first reservation smaller
// than the start sent every instance to the whole limit at once.
const pdfMemoryFirst = 16 << 20

// pdfMemoryContext is the context PDFium's modules are instantiated with:
// it carries the allocator.
func pdfMemoryContext() context.Context {
	return experimental.WithMemoryAllocator(context.Background(), experimental.MemoryAllocatorFunc(newPDFMemory))
}

// newPDFMemory starts a memory that may grow to max bytes (never more
// than pdfMemoryLimit, which wazero's memory limit makes max already).
func newPDFMemory(start, max uint64) experimental.LinearMemory {
	max = min(max, pdfMemoryLimit)
	return &pdfMemory{buf: make([]byte, 0, min(max, start+pdfMemoryFirst)), max: max}
}

// Reallocate grows the memory to size bytes: in place within its
// reservation, else into one of the whole limit. Past the limit it
// fails, and PDFium's malloc sees an ordinary out-of-memory.
func (m *pdfMemory) Reallocate(size uint64) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case size <= uint64(cap(m.buf)):
		m.buf = m.buf[:size]
	case size <= m.max:
		nb := make([]byte, size, m.max)
		copy(nb, m.buf)
		m.buf = nb
	default:
		return nil
	}
	return m.buf
}

// Free drops the memory; the collector frees it when the instance no
// longer refers to it.
func (m *pdfMemory) Free() {
	m.mu.Lock()
	m.buf = nil
	m.mu.Unlock()
}
