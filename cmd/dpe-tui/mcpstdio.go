package main

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// stdioDrainWait bounds how long the end of mcp's stdin waits for the
// answers to the requests read before it.
const stdioDrainWait = 2 * time.Minute

// stdioPending lets `mcp` on stdio answer what was piped in before stdin
// closed (`printf '…requests…' | dpe-tui mcp`): the go-sdk ends the
// session at the input's EOF and cancels the calls still running, so a
// tools/call sent last got no answer at all. It counts the requests read
// (a method and an id) and the answers written (an id, no method), and
// holds the EOF until every request is answered, at most
// stdioDrainWait; a client that keeps stdin open is not affected.
type stdioPending struct {
	mu      sync.Mutex
	changed *sync.Cond
	open    map[string]bool // ids read and not yet answered
	in, out lineSplitter
}

func newStdioPending() *stdioPending {
	p := &stdioPending{open: map[string]bool{}}
	p.changed = sync.NewCond(&p.mu)
	return p
}

// reader is stdin, with its EOF held while requests are open.
func (p *stdioPending) reader(r io.Reader) io.Reader {
	return readerFunc(func(b []byte) (int, error) {
		n, err := r.Read(b)
		p.in.feed(b[:n], p.request)
		if err == io.EOF {
			p.drain(stdioDrainWait)
		}
		return n, err
	})
}

// writer is stdout, seeing the answers go out.
func (p *stdioPending) writer(w io.Writer) io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		n, err := w.Write(b)
		p.out.feed(b[:n], p.answer)
		return n, err
	})
}

type rpcIDs struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func (p *stdioPending) request(line []byte) {
	var m rpcIDs
	if json.Unmarshal(line, &m) != nil || m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return // a notification, a batch or garbage: nothing to wait for
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.open) < 4096 { // bounded: a flood does not grow it
		p.open[string(bytes.TrimSpace(m.ID))] = true
	}
}

func (p *stdioPending) answer(line []byte) {
	var m rpcIDs
	if json.Unmarshal(line, &m) != nil || m.Method != "" || len(m.ID) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.open, string(bytes.TrimSpace(m.ID)))
	p.changed.Broadcast()
}

// drain waits until no request is open, or for at most d.
func (p *stdioPending) drain(d time.Duration) {
	timer := time.AfterFunc(d, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		clear(p.open)
		p.changed.Broadcast()
	})
	defer timer.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.open) > 0 {
		p.changed.Wait()
	}
}

// lineSplitter hands on whole lines of a stream written in pieces; a
// line longer than the stdio JSON-RPC limit is dropped, not kept.
type lineSplitter struct{ buf []byte }

const maxStdioLine = 16 << 20

func (s *lineSplitter) feed(b []byte, line func([]byte)) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(s.buf)+len(b) <= maxStdioLine {
				s.buf = append(s.buf, b...)
			} else {
				s.buf = s.buf[:0]
			}
			return
		}
		if len(s.buf) > 0 {
			line(append(s.buf, b[:i]...))
			s.buf = s.buf[:0]
		} else {
			line(b[:i])
		}
		b = b[i+1:]
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(b []byte) (int, error) { return f(b) }

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
