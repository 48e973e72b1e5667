package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/plural"
	"github.com/dpe-tui/dpe-tui/sanitize"
	"github.com/dpe-tui/dpe-tui/search"
)

// findSnippetCols is the width of a hit's snippet in find's text output:
// a window centred on the match (search.Window), so the match shows even
// where the Finder's snippet starts well before it. --json prints the
// whole snippet and its match spans.
const findSnippetCols = 60

type findFlags struct {
	globalFlags
	Computer string
	Type     string
	Limit    int
	JSON     bool
	Open     int
}

func (a *app) findCmd() *cobra.Command {
	f := &findFlags{}
	cmd := &cobra.Command{
		Use:   "find QUERY",
		Short: "Search every computer's Finder for documents",
		Long: "find asks every computer's Finder (client:get_tools, then client:tool_call in parallel) and\n" +
			"prints the merged hits, one a line or JSON Lines. Each computer's state goes to stderr as it answers.",
		Example: `  dpe-tui find "quarterly revenue"
  dpe-tui find invoice --type pdf --limit 5 --json
  dpe-tui find budget --open 1`,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.with(&f.globalFlags, "find")
			return runFind(a.ctx, f, args, a.stdout, a.stderr)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.Computer, "computer", "", "search only this computer (default: every computer)")
	fs.StringVar(&f.Type, "type", "", "only documents of this file_type (pdf, md, csv …)")
	fs.IntVar(&f.Limit, "limit", 20, "at most N hits (1-100)")
	fs.BoolVar(&f.JSON, "json", false, "one JSON object per hit")
	fs.IntVar(&f.Open, "open", 0, "then open hit N (1-based) through client:get_dpe and print its page as text")
	return cmd
}

// runFind searches every computer's Finder (client:get_tools, then
// client:tool_call in parallel) and prints the merged hits: one line each,
// or JSON Lines. Per-computer states go to stderr as they arrive, so fast
// computers are reported first and a silent one only when it times out.
func runFind(ctx context.Context, f *findFlags, pos []string, stdout, stderr io.Writer) error {
	if err := f.validate(); err != nil {
		return err
	}
	if len(pos) == 0 || strings.TrimSpace(strings.Join(pos, " ")) == "" {
		return usageErrorf("find needs a QUERY")
	}
	if f.Limit < 1 || f.Limit > 100 {
		return usageErrorf("--limit must be 1-100")
	}
	if f.Open < 0 {
		return usageErrorf("--open must be ≥ 1")
	}
	log, closeLog, err := f.logger()
	if err != nil {
		return err
	}
	defer closeLog()
	t, err := resolveTarget(ctx, &f.globalFlags, log)
	if err != nil {
		return err
	}
	defer t.Close()
	c, err := dial(ctx, &f.globalFlags, t, log)
	if err != nil {
		return err
	}
	defer c.Close()

	q := search.Query{Text: strings.Join(pos, " "), FileType: f.Type, Limit: f.Limit}
	if f.Computer != "" {
		q.Computers = []string{f.Computer}
	}
	var results []search.Result
	if t.demo != nil {
		// The stack this process just started indexes in the background:
		// a one-shot find would otherwise always answer from an empty
		// index. Ask again until every Finder is complete, bounded by
		// --timeout.
		results, err = findComplete(ctx, c, q, time.Duration(f.Timeout))
		for _, r := range results {
			printState(stderr, r)
		}
	} else {
		results, err = search.Run(ctx, c, q, func(r search.Result) { printState(stderr, r) })
	}
	if err != nil {
		return err
	}
	if se := search.Syntax(results); se != nil {
		// One line naming the problem; not a usage error, whose hint
		// about flags would point the wrong way.
		return se
	}
	hits := search.Merge(results, f.Limit)
	enc := json.NewEncoder(stdout)
	for i, h := range hits {
		if f.JSON {
			h.URI, h.Title, h.Snippet = sanitize.Line(h.URI), sanitize.Line(h.Title), sanitize.Line(h.Snippet)
			h.Computer, h.ElementID, h.Category = sanitize.Line(h.Computer), sanitize.Line(h.ElementID), sanitize.Line(h.Category)
			if err := enc.Encode(findJSONHit{Rank: i + 1, Hit: h}); err != nil {
				return err
			}
			continue
		}
		snip, _ := search.Window(h.Snippet, h.Match, findSnippetCols)
		fmt.Fprintf(stdout, "%s\t%s\tp.%d\t%s\t%s\t%s\n", sanitize.Line(h.Computer), sanitize.Line(h.URI), h.Page,
			sanitize.Line(h.ElementID), sanitize.Line(h.Title), sanitize.Line(snip))
	}
	finders := 0
	for _, r := range results {
		if r.State == search.OK {
			finders++
		}
	}
	if finders == 0 {
		return errors.New("no computer answered with a Finder")
	}
	if partial := incomplete(results); len(partial) > 0 {
		fmt.Fprintf(stderr, "dpe-tui: answered from an incomplete index on %s\n", strings.Join(partial, ", "))
		if len(hits) == 0 {
			return &exitError{code: exitIncomplete, msg: "no hits, but the index is not complete: try again later or with a longer --timeout"}
		}
	}
	if f.Open == 0 {
		return nil
	}
	if f.Open > len(hits) {
		return fmt.Errorf("--open %d: there are %s", f.Open, plural.Count(len(hits), "hit", "hits"))
	}
	return openHit(ctx, &f.globalFlags, c, t, hits[f.Open-1], stdout)
}

// openHit opens a hit the way the TUI does: client:get_dpe on the
// computer that found it, then the hit's page, printed as text under a
// line naming the element. A server that does not route get_dpe gets
// search.OpenError's explanation.
func openHit(ctx context.Context, g *globalFlags, c *client.Client, t *target, h search.Hit, w io.Writer) error {
	opener := &dpe.Opener{Resolver: c.Resolver(h.Computer), Fetcher: fetcher(g, t.URL), Limits: dpe.DefaultLimits()}
	op, err := opener.Open(ctx, h.URI)
	if err != nil {
		return search.OpenError(err)
	}
	if op.Kind != dpe.KindDocument || h.Page > len(op.Doc.Pages) {
		return fmt.Errorf("open %s: no page %d", sanitize.Line(h.URI), h.Page)
	}
	fmt.Fprintf(w, "\n%s p.%d %s:\n", sanitize.Line(h.URI), h.Page, sanitize.Line(h.ElementID))
	return printGet(ctx, opener, op, h.Page, "text", w)
}

// findPoll is how often findComplete asks again.
const findPoll = 100 * time.Millisecond

// findComplete runs q until every Finder that answers says its index is
// complete, or wait has passed (then the last answers are returned, and
// the caller says they are partial). Computers without Finder or that
// failed do not make it wait.
func findComplete(ctx context.Context, c search.Caller, q search.Query, wait time.Duration) ([]search.Result, error) {
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var last []search.Result
	for {
		results, err := search.Run(wctx, c, q, nil)
		if wctx.Err() != nil && last != nil && ctx.Err() == nil {
			return last, nil // the wait ran out mid-query: the previous full answer
		}
		if err != nil {
			return results, err
		}
		last = results
		if len(incomplete(results)) == 0 {
			return results, nil
		}
		t := time.NewTimer(findPoll)
		select {
		case <-wctx.Done():
			t.Stop()
			if err := ctx.Err(); err != nil {
				return last, err
			}
			return last, nil
		case <-t.C:
		}
	}
}

// incomplete names the computers whose Finder answered from an index still
// being built.
func incomplete(results []search.Result) []string {
	var out []string
	for _, r := range results {
		if r.State == search.OK && !r.Complete {
			out = append(out, sanitize.Line(r.Computer))
		}
	}
	return out
}

func printState(w io.Writer, r search.Result) {
	name := sanitize.Line(r.Computer)
	switch r.State {
	case search.OK:
		fmt.Fprintf(w, "%s: %s of %d; %s\n", name, plural.Count(len(r.Hits), "hit", "hits"), r.Total, sanitize.Line(r.Indexed))
	case search.NoFinder:
		fmt.Fprintf(w, "%s: no Finder\n", name)
	case search.Failed:
		var se *search.SyntaxError
		if errors.As(r.Err, &se) {
			return // reported once for all computers
		}
		fmt.Fprintf(w, "%s: error: %s\n", name, sanitize.Line(sanitize.URLsIn(r.Err.Error())))
	}
}

// findJSONHit is one line of find --json: the hit with its rank, its
// 1-based place in the merged list (what --open N takes); the engine's
// score stays in score.
type findJSONHit struct {
	Rank int `json:"rank"`
	search.Hit
}
