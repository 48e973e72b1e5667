//go:build unix

package convert

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// pdfMemoryAllocator backs each PDFium instance's linear memory with one
// anonymous mapping of its maximum size, grown in place. wazero's default
// grows a Go slice by copying, so a module nearing pdfMemoryLimit held
// the old and the new buffer, and the garbage until a GC: 1.9 GB of RSS
// for a 512 MiB limit. A mapping costs only the pages touched, and is
// returned to the system at once when the instance closes.
func pdfMemoryAllocator() experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(_, max uint64) experimental.LinearMemory {
		if max == 0 || max > pdfMemoryLimit {
			max = pdfMemoryLimit
		}
		buf, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
		if err != nil {
			return &sliceMemory{max: max} // no mapping: grow like wazero does
		}
		return &mappedMemory{buf: buf}
	})
}

type mappedMemory struct{ buf []byte }

func (m *mappedMemory) Reallocate(size uint64) []byte {
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size:size]
}

func (m *mappedMemory) Free() {
	if m.buf != nil {
		syscall.Munmap(m.buf)
		m.buf = nil
	}
}

type sliceMemory struct {
	buf []byte
	max uint64
}

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	if size > uint64(cap(m.buf)) {
		grown := make([]byte, size, min(2*size, m.max))
		copy(grown, m.buf)
		m.buf = grown
	}
	m.buf = m.buf[:size]
	return m.buf
}

func (m *sliceMemory) Free() { m.buf = nil }
