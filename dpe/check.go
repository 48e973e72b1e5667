package dpe

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/dpe-tui/dpe-tui/internal/plural"
)

// DefaultFetchWorkers bounds how many manifest pages LoadManifestPages
// fetches at once when the caller gives no bound: enough to hide latency,
// few enough not to hammer one resolver.
const DefaultFetchWorkers = 4

// Check runs Check on op's document and traces it. The dpe:// URI op was
// resolved from is the one doc_ref and uri must agree with, unless opt
// names another.
func (o *Opener) Check(op *Opened, opt CheckOptions) []Finding {
	if op.Doc == nil {
		return nil
	}
	op.mu.Lock()
	defer op.mu.Unlock()
	if opt.ResolvedURI == "" {
		opt.ResolvedURI = op.dpe
	}
	if opt.Limits == (Limits{}) {
		opt.Limits = o.Limits
	}
	fs := Check(op.Doc, opt)
	v := 0
	for _, f := range fs {
		if f.Severity == Violation {
			v++
		}
	}
	o.trace(TraceEvent{Kind: TraceValidate, Detail: plural.Count(len(fs), "finding", "findings") + ", " + plural.Count(v, "violation", "violations")})
	return fs
}

// LoadManifestPages fetches every manifest page of op that is not loaded
// yet, at most workers at a time (0: DefaultFetchWorkers), calling progress
// (if not nil) after each page with how many are done of how many. A page
// that fails is retried once through LoadPage, which re-resolves an
// expired or failing access URI; a page that still fails becomes a
// RulePageLoad finding, and the others are still loaded. It returns those
// findings; a page whose fetched body names another page_index than its
// manifest entry gets a RuleManifestIndex problem that Check reports.
// OnTrace may be called from several goroutines, one call at a time.
func (o *Opener) LoadManifestPages(ctx context.Context, op *Opened, workers int, progress func(done, total int)) []Finding {
	if op.Doc == nil {
		return nil
	}
	if workers <= 0 {
		workers = DefaultFetchWorkers
	}
	op.mu.Lock()
	var todo []int
	for i, p := range op.Doc.Pages {
		if !p.Decoded && !p.hasElements && p.URI != "" {
			todo = append(todo, i)
		}
	}
	dpeURI, acc, kind := op.DPE, op.Access, op.Kind
	op.mu.Unlock()
	if len(todo) == 0 {
		return nil
	}

	var traceMu sync.Mutex
	wo := &Opener{Resolver: o.Resolver, Fetcher: o.Fetcher, Limits: o.Limits, Now: o.Now}
	if o.OnTrace != nil {
		wo.OnTrace = func(ev TraceEvent) {
			traceMu.Lock()
			defer traceMu.Unlock()
			o.OnTrace(ev)
		}
	}
	var (
		mu     sync.Mutex
		next   int
		done   int
		failed []int
		wg     sync.WaitGroup
	)
	tick := func() {
		done++
		if progress != nil {
			progress(done, len(todo))
		}
	}
	for range min(workers, len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				mu.Lock()
				if next >= len(todo) {
					mu.Unlock()
					return
				}
				i := todo[next]
				next++
				mu.Unlock()

				// Each fetch loads a private copy of the page through a
				// one-page Opened, so the fetches do not serialise on op's
				// lock; the result is installed under it.
				op.mu.Lock()
				pc := *op.Doc.Pages[i]
				op.mu.Unlock()
				// No dpe string: a worker never re-resolves (the retry
				// below does, once, for all failed pages).
				one := &Opened{DPE: dpeURI, Access: acc, Kind: kind, Doc: &Document{Pages: []*Page{&pc}}}
				pl, err := wo.LoadPage(ctx, one, 0)

				mu.Lock()
				if err != nil {
					failed = append(failed, i)
				} else {
					op.mu.Lock()
					installPage(op.Doc.Pages[i], pl.Page)
					op.mu.Unlock()
				}
				tick()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()

	var out []Finding
	slices.Sort(failed)
	for _, i := range failed {
		err := wo.LoadPageInto(ctx, op, i)
		if err == nil {
			op.mu.Lock()
			noteManifestIndex(op.Doc.Pages[i])
			op.mu.Unlock()
			continue
		}
		p := op.Doc.Pages[i]
		out = append(out, Finding{Path: fmt.Sprintf("$.pages[%d].uri", p.pos), Rule: RulePageLoad, ID: ruleID(RulePageLoad), Severity: Violation,
			Page: i, Element: -1, PageIndex: p.Index, Value: RedactURI(p.URI), Message: err.Error()})
	}
	return out
}

// installPage moves what LoadPage decoded into a copy of p into p.
func installPage(p, loaded *Page) {
	p.Elements = loaded.Elements
	p.nElements = loaded.nElements
	p.problems = loaded.problems
	p.Decoded = loaded.Decoded
	noteManifestIndex(p)
}

// noteManifestIndex records a fetched page whose elements sit on another
// page_index than the manifest entry that points to it: elements take the
// fetched page's page_index when they name none (dpe.md §Page 对象: the
// fetched content "仍是一个 Page 对象"), so all of them disagreeing means
// the body is another page.
func noteManifestIndex(p *Page) {
	if len(p.Elements) == 0 {
		return
	}
	got := p.Elements[0].PageIndex
	if got == p.Index {
		return
	}
	for _, el := range p.Elements {
		if el.PageIndex != got {
			return
		}
	}
	p.problems = append(p.problems, Finding{Path: fmt.Sprintf("$.pages[%d].uri", p.pos), Rule: RuleManifestIndex, Severity: Violation,
		Element: -1, Value: RedactURI(p.URI),
		Message: fmt.Sprintf("the page fetched from uri has page_index %d, but its manifest entry is page_index %d", got, p.Index)})
}

// ruleID is the id of the rule named name ("" when there is none).
func ruleID(name string) string {
	r, _ := RuleByID(name)
	return r.ID
}
