package convert

import "context"

// A whole PDF converted at once (Document.JSON) is read on two PDFium
// instances: while the document's own instance reads page i, a second
// one, with the document opened in it too, reads page i+1, and the
// layout, which needs the pages in order, runs as each arrives. PDFium's
// work is most of a conversion, so on two cores a long PDF takes about
// half the time. The second instance is taken only when one is free at
// once and no other document waits for one, and given back as soon as
// one does; pages read alone (get --page N, open) never start it.

// pdfAheadPages is the fewest pages worth a second instance: starting
// one and opening the document in it costs about as much as reading a
// few pages.
const pdfAheadPages = 8

// pdfAhead is the second instance and the page it is reading.
type pdfAhead struct {
	release func() // the slot, until r owns it
	r       *pdfReader
	ctx     context.Context
	cancel  context.CancelFunc
	page    int // the page in flight, -1 for none
	read    int // pages it has read
	done    chan pdfAheadResult
}

type pdfAheadResult struct {
	d   pdfPageData
	err error
	// failed: the second instance could not be started or could not
	// open the document; the page is read by the first.
	failed bool
}

// readAllAhead tells pages (unwrapped) that every page will be read.
func readAllAhead(p Pages) {
	for {
		switch q := p.(type) {
		case *closeAfter:
			p = q.Pages
		case *pdfPages:
			q.readAhead()
			return
		default:
			return
		}
	}
}

// readAhead lets the pages be read on a second instance from now on;
// Document.JSON asks for it.
func (p *pdfPages) readAhead() {
	if len(p.info.PageTitles) >= pdfAheadPages {
		p.wantAhead = true
	}
}

// readNext starts reading page j on the second instance if it is idle (or
// not started yet and one is free), and gives it back when another
// document waits for an instance.
func (p *pdfPages) readNext(j int, maxPixels int64) {
	if !p.wantAhead || j >= len(p.info.PageTitles) {
		return
	}
	a := p.ahead
	if a != nil && a.page >= 0 {
		return
	}
	if p.engine.waiting.Load() > 0 {
		p.stopAhead()
		return
	}
	if a == nil {
		release, ok := p.engine.slot()
		if !ok {
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		a = &pdfAhead{release: release, ctx: ctx, cancel: cancel, page: -1, done: make(chan pdfAheadResult, 1)}
		p.ahead = a
	}
	a.page = j
	data, engine := p.data, p.engine
	go func() {
		var res pdfAheadResult
		if a.r == nil {
			inst, err := engine.get(a.ctx)
			if err == nil {
				a.r, err = openReader(a.ctx, inst, a.release, data)
			} else {
				a.release()
			}
			if err != nil {
				a.done <- pdfAheadResult{failed: true}
				return
			}
		}
		res.d, res.err = a.r.read(a.ctx, j, maxPixels)
		a.read++
		a.done <- res
	}()
}

// takeAhead is page i when the second instance is reading it: its
// result, waited for within ctx (at ctx's end the instance is killed).
// ok is false when page i is the first instance's to read.
func (p *pdfPages) takeAhead(ctx context.Context, i int) (d pdfPageData, ok bool, err error) {
	a := p.ahead
	if a == nil || a.page != i {
		return d, false, nil
	}
	var res pdfAheadResult
	select {
	case res = <-a.done:
	case <-ctx.Done():
		p.stopAhead() // kills the read in flight (guard)
		return d, true, ctx.Err()
	}
	a.page = -1
	if res.failed {
		p.stopAhead()
		return d, false, nil
	}
	if res.err != nil || a.r.killed.Load() {
		p.stopAhead() // a killed instance has lost the document
	}
	return res.d, true, res.err
}

// stopAhead ends the read in flight, if any, and closes the second
// instance; pages are read by the first from now on.
func (p *pdfPages) stopAhead() error {
	a := p.ahead
	p.ahead, p.wantAhead = nil, false
	if a == nil {
		return nil
	}
	a.cancel()
	if a.page >= 0 {
		<-a.done
	}
	if a.r == nil {
		a.release() // once: a failed start gave it back already
		return nil
	}
	return a.r.close()
}
