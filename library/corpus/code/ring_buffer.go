//go:build ignore

// Sample corpus file: a small generic ring buffer with an iterator and a
// tiny self-test. It is documentation for the DPE library, not part of the
// dpe-tui build (hence the ignore constraint above).
package ringbuf

import (
	"errors"
	"fmt"
	"iter"
)

// ErrEmpty is returned by Pop on an empty buffer.
var ErrEmpty = errors.New("ringbuf: empty")

// Ring is a fixed-capacity FIFO. When full, Push overwrites the oldest
// element and reports that it did.
type Ring[T any] struct {
	buf   []T
	head  int // index of the oldest element
	count int
}

// New returns a ring that holds up to capacity elements.
func New[T any](capacity int) *Ring[T] {
	if capacity < 1 {
		panic(fmt.Sprintf("ringbuf: capacity %d < 1", capacity))
	}
	return &Ring[T]{buf: make([]T, capacity)}
}

// Len is the number of elements held.
func (r *Ring[T]) Len() int { return r.count }

// Cap is the fixed capacity.
func (r *Ring[T]) Cap() int { return len(r.buf) }

// Full reports whether the next Push overwrites.
func (r *Ring[T]) Full() bool { return r.count == len(r.buf) }

// Push appends v. It returns true when an old element was overwritten.
func (r *Ring[T]) Push(v T) (overwrote bool) {
	tail := (r.head + r.count) % len(r.buf)
	r.buf[tail] = v
	if r.Full() {
		r.head = (r.head + 1) % len(r.buf)
		return true
	}
	r.count++
	return false
}

// Pop removes and returns the oldest element.
func (r *Ring[T]) Pop() (T, error) {
	var zero T
	if r.count == 0 {
		return zero, ErrEmpty
	}
	v := r.buf[r.head]
	r.buf[r.head] = zero // let the garbage collector have it
	r.head = (r.head + 1) % len(r.buf)
	r.count--
	return v, nil
}

// Peek returns the oldest element without removing it.
func (r *Ring[T]) Peek() (T, bool) {
	var zero T
	if r.count == 0 {
		return zero, false
	}
	return r.buf[r.head], true
}

// At returns the i-th oldest element (0 is the oldest).
func (r *Ring[T]) At(i int) T {
	if i < 0 || i >= r.count {
		panic(fmt.Sprintf("ringbuf: index %d out of range [0,%d)", i, r.count))
	}
	return r.buf[(r.head+i)%len(r.buf)]
}

// All iterates from oldest to newest.
func (r *Ring[T]) All() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		for i := 0; i < r.count; i++ {
			if !yield(i, r.At(i)) {
				return
			}
		}
	}
}

// Reset empties the ring and clears references.
func (r *Ring[T]) Reset() {
	var zero T
	for i := range r.buf {
		r.buf[i] = zero
	}
	r.head, r.count = 0, 0
}

// Slice copies the contents, oldest first.
func (r *Ring[T]) Slice() []T {
	out := make([]T, 0, r.count)
	for _, v := range r.All() {
		out = append(out, v)
	}
	return out
}

// String is for debugging: [a b c] plus the fill level.
func (r *Ring[T]) String() string {
	return fmt.Sprintf("%v (%d/%d)", r.Slice(), r.count, len(r.buf))
}

// MovingAverage keeps the mean of the last n samples, a typical use of a
// ring: smoothing a sensor reading.
type MovingAverage struct {
	ring *Ring[float64]
	sum  float64
}

// NewMovingAverage averages over the last n samples.
func NewMovingAverage(n int) *MovingAverage {
	return &MovingAverage{ring: New[float64](n)}
}

// Add records a sample and returns the current average.
func (m *MovingAverage) Add(x float64) float64 {
	if m.ring.Full() {
		old, _ := m.ring.Peek()
		m.sum -= old
	}
	m.ring.Push(x)
	m.sum += x
	return m.sum / float64(m.ring.Len())
}

func main() {
	r := New[string](3)
	for _, s := range []string{"a", "b", "c", "d"} {
		if r.Push(s) {
			fmt.Println("overwrote oldest when pushing", s)
		}
	}
	fmt.Println(r) // [b c d] (3/3)

	avg := NewMovingAverage(4)
	for _, x := range []float64{10, 12, 11, 13, 30} {
		fmt.Printf("sample %.0f → average %.2f\n", x, avg.Add(x))
	}

	for {
		v, err := r.Pop()
		if errors.Is(err, ErrEmpty) {
			break
		}
		fmt.Println("popped", v)
	}
}
