// Package search is the agent side of Finder: it finds the computers of an
// office that host a Finder, runs a query on all of them in parallel and
// merges the hits.
//
// A Finder is recognised by its tool, not by a server name: a tool named
// find whose input schema has a string property query (required) and the
// properties cursor, limit and file_type. Each computer's get_tools and
// tool_call are bounded by the client's request timeout, so a slow or
// silent computer delays only its own result.
//
// The TUI drives it from tea.Cmds: Start returns at once; each Next call
// (one per tea.Cmd) blocks until the next computer is done and returns its
// Result, so fast computers are shown first; Merge ranks what has arrived.
package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// Caller is what search needs of a client (*client.Client has it).
type Caller interface {
	Computers(ctx context.Context) ([]protocol.SessionInfo, error)
	GetTools(ctx context.Context, computer string) ([]protocol.SMCPTool, error)
	ToolCall(ctx context.Context, computer, tool string, params map[string]any) (json.RawMessage, error)
}

var _ Caller = (*client.Client)(nil)

// Query is one search.
type Query struct {
	Text      string
	FileType  string
	Limit     int      // per computer and merged; default 20, at most 100
	Computers []string // empty: every computer in the office
}

// Span is a match in a snippet, in runes.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Hit is one hit, with the computer it came from.
type Hit struct {
	Computer  string  `json:"computer"`
	URI       string  `json:"uri"`
	Title     string  `json:"title"`
	Page      int     `json:"page"`
	ElementID string  `json:"element_id"`
	Category  string  `json:"category"`
	Snippet   string  `json:"snippet"`
	Match     []Span  `json:"match,omitempty"`
	Score     float64 `json:"score"`
	// Rank is Score over the best score of the same computer: scores of
	// two indexes are not comparable, ranks are. In JSON it is
	// relative_score; "rank" is the hit's place in the merged list (find
	// --json), a position as every search tool means it.
	Rank float64 `json:"relative_score"`
	// pos is the hit's place in its computer's answer (0 first).
	pos int
}

// State is how a computer's search ended.
type State int

const (
	OK       State = iota
	NoFinder       // the computer has no tool that is a Finder
	Failed         // get_tools or tool_call failed, or the result is malformed
)

// Result is one computer's answer.
type Result struct {
	Computer string
	State    State
	Hits     []Hit
	Total    int
	Indexed  string // "indexed: 812/1000 documents"
	Complete bool   // the computer's index is complete
	Partial  bool   // some document is indexed only in part (Indexed says which)
	// Note is that part of Indexed alone: "partly indexed: big.json, the
	// first 296 of 2,000 pages", "skipped 2 that cannot be read: …".
	Note string
	Err  error // Failed only
}

// SyntaxError is a query every Finder rejected for its syntax.
type SyntaxError struct{ Msg string }

func (e *SyntaxError) Error() string { return e.Msg }

// Bounds on what one computer may send.
const (
	maxHits      = 200
	maxField     = 1024
	maxSnippet   = 1024
	maxToolsSeen = 10000
)

// Search is a running fan-out.
type Search struct {
	ch     chan Result
	n      int
	got    int
	cancel context.CancelFunc
}

// Start lists the computers (unless q names them) and starts one search
// per computer. It returns once the listing is done.
func Start(ctx context.Context, c Caller, q Query) (*Search, error) {
	if strings.TrimSpace(q.Text) == "" {
		return nil, errors.New("empty query")
	}
	if q.Limit <= 0 {
		q.Limit = 20
	}
	q.Limit = min(q.Limit, 100)
	names := q.Computers
	if len(names) == 0 {
		comps, err := c.Computers(ctx)
		if err != nil {
			return nil, err
		}
		for _, s := range comps {
			names = append(names, s.Name)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Search{ch: make(chan Result, len(names)), n: len(names), cancel: cancel}
	for _, name := range names {
		go func() { s.ch <- one(ctx, c, name, q) }()
	}
	return s, nil
}

// Len is how many computers are searched.
func (s *Search) Len() int { return s.n }

// Next returns the next computer to finish; false once all have (or ctx
// ended: the remaining computers are then not reported).
func (s *Search) Next(ctx context.Context) (Result, bool) {
	if s.got >= s.n {
		return Result{}, false
	}
	select {
	case r := <-s.ch:
		s.got++
		return r, true
	case <-ctx.Done():
		return Result{}, false
	}
}

// Cancel stops the searches still running.
func (s *Search) Cancel() { s.cancel() }

// Run is Start, then Next until every computer is done, calling each (if
// set) as results arrive; it returns them in arrival order.
func Run(ctx context.Context, c Caller, q Query, each func(Result)) ([]Result, error) {
	s, err := Start(ctx, c, q)
	if err != nil {
		return nil, err
	}
	defer s.Cancel()
	var out []Result
	for {
		r, ok := s.Next(ctx)
		if !ok {
			break
		}
		if each != nil {
			each(r)
		}
		out = append(out, r)
	}
	if err := ctx.Err(); err != nil {
		return out, err
	}
	return out, nil
}

// Syntax reports a query rejected for its syntax: no Finder answered it
// and at least one rejected its syntax (a computer that is down or has no
// Finder does not hide the reason from the user). Nil otherwise.
func Syntax(results []Result) *SyntaxError {
	var msg string
	for _, r := range results {
		if r.State == OK {
			return nil
		}
		var se *SyntaxError
		if r.State == Failed && msg == "" && errors.As(r.Err, &se) {
			msg = se.Msg
		}
	}
	if msg == "" {
		return nil
	}
	return &SyntaxError{Msg: msg}
}

// Merge ranks the hits of every result and keeps limit of them: by Rank,
// then by place in their computer's answer, then computer, URI, page and
// element. Raw scores of two indexes are not compared: ties in rank (a
// library whose hits all score alike) interleave the computers instead of
// letting one index's scale crowd out the others.
func Merge(results []Result, limit int) []Hit {
	var all []Hit
	for _, r := range results {
		all = append(all, r.Hits...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		switch {
		case a.Rank != b.Rank:
			return a.Rank > b.Rank
		case a.pos != b.pos:
			return a.pos < b.pos
		case a.Computer != b.Computer:
			return a.Computer < b.Computer
		case a.URI != b.URI:
			return a.URI < b.URI
		case a.Page != b.Page:
			return a.Page < b.Page
		}
		return a.ElementID < b.ElementID
	})
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	return all
}

// IsFinder reports whether t is a Finder find tool: its name and its
// input schema.
func IsFinder(t protocol.SMCPTool) bool {
	if t.Name != "find" {
		return false
	}
	var s struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(t.ParamsSchema, &s) != nil {
		return false
	}
	isType := func(prop, want string) bool {
		p, ok := s.Properties[prop]
		if !ok {
			return false
		}
		switch v := p.Type.(type) {
		case string:
			return v == want
		case []any:
			for _, x := range v {
				if x == want {
					return true
				}
			}
		}
		return false
	}
	required := false
	for _, r := range s.Required {
		required = required || r == "query"
	}
	return required && isType("query", "string") && isType("cursor", "string") &&
		isType("limit", "integer") && isType("file_type", "string")
}

func one(ctx context.Context, c Caller, name string, q Query) Result {
	r := Result{Computer: name}
	tools, err := c.GetTools(ctx, name)
	if err != nil {
		r.State, r.Err = Failed, err
		return r
	}
	tool := ""
	for i, t := range tools {
		if i >= maxToolsSeen {
			break
		}
		if IsFinder(t) {
			tool = t.Name
			break
		}
	}
	if tool == "" {
		r.State = NoFinder
		return r
	}
	params := map[string]any{"query": q.Text, "limit": q.Limit}
	if q.FileType != "" {
		params["file_type"] = q.FileType
	}
	raw, err := c.ToolCall(ctx, name, tool, params)
	if err != nil {
		r.State, r.Err = Failed, err
		return r
	}
	if err := decode(raw, &r); err != nil {
		r.State, r.Err, r.Hits = Failed, err, nil
		return r
	}
	return r
}

// wireResult is the CallToolResult of find as it arrives.
type wireResult struct {
	IsError    bool              `json:"isError"`
	Content    []json.RawMessage `json:"content"`
	Structured *struct {
		Hits    []wireHit `json:"hits"`
		Total   int       `json:"total"`
		Indexed *struct {
			Indexed  int    `json:"documents_indexed"`
			Total    int    `json:"documents_total"`
			Complete bool   `json:"complete"`
			Partial  int    `json:"documents_partial"`
			Skipped  int    `json:"documents_skipped"`
			Note     string `json:"note"`
		} `json:"indexed"`
	} `json:"structuredContent"`
}

type wireHit struct {
	URI       string  `json:"uri"`
	Title     string  `json:"title"`
	Page      int     `json:"page"`
	ElementID string  `json:"element_id"`
	Category  string  `json:"category"`
	Snippet   string  `json:"snippet"`
	Match     []Span  `json:"match"`
	Score     float64 `json:"score"`
}

// malformed is a Finder answer that does not have the shape of find's
// output schema.
func malformed(format string, a ...any) error {
	return fmt.Errorf("malformed Finder result: "+format, a...)
}

func decode(raw json.RawMessage, r *Result) error {
	var w wireResult
	if err := json.Unmarshal(raw, &w); err != nil {
		return malformed("%s", oneLine(err.Error()))
	}
	if w.IsError {
		msg := "Finder error"
		for _, c := range w.Content {
			var tc struct {
				Type, Text string
			}
			if json.Unmarshal(c, &tc) == nil && tc.Type == "text" && tc.Text != "" {
				msg = clip(oneLine(tc.Text), maxField)
				break
			}
		}
		if strings.HasPrefix(msg, "query syntax: ") {
			return &SyntaxError{Msg: msg}
		}
		return errors.New(msg)
	}
	if w.Structured == nil {
		return malformed("no structuredContent")
	}
	if len(w.Structured.Hits) > maxHits {
		return malformed("%d hits, more than %d", len(w.Structured.Hits), maxHits)
	}
	best := 0.0
	for i, h := range w.Structured.Hits {
		if !strings.HasPrefix(h.URI, "dpe://") || h.Page < 1 || h.ElementID == "" {
			return malformed("hit %d: want a dpe:// uri, a page ≥ 1 and an element_id", i+1)
		}
		best = max(best, h.Score)
	}
	for i, h := range w.Structured.Hits {
		snip := clip(h.Snippet, maxSnippet)
		n := utf8.RuneCountInString(snip)
		var spans []Span
		for _, s := range h.Match {
			if s.Start >= 0 && s.Start < s.End && s.End <= n && len(spans) < 64 {
				spans = append(spans, s)
			}
		}
		hit := Hit{Computer: r.Computer, URI: clip(h.URI, maxField), Title: clip(h.Title, maxField), Page: h.Page,
			ElementID: clip(h.ElementID, maxField), Category: clip(h.Category, 64), Snippet: snip, Match: spans, Score: h.Score, pos: i}
		if best > 0 {
			hit.Rank = h.Score / best
		}
		r.Hits = append(r.Hits, hit)
	}
	r.Total = w.Structured.Total
	if ix := w.Structured.Indexed; ix != nil {
		r.Indexed = fmt.Sprintf("indexed: %d/%d documents", ix.Indexed, ix.Total)
		r.Complete = ix.Complete
		r.Partial = ix.Partial > 0
		if ix.Partial > 0 || ix.Skipped > 0 {
			// "partly indexed: big.json, the first 296 of 2,000 pages",
			// "skipped 2 that cannot be read: a.xlsx (…), b.csv (…)"
			if note := clip(oneLine(ix.Note), maxField); note != "" {
				r.Indexed += "; " + note
				r.Note = note
			}
		}
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// OpenError explains why a hit cannot be opened: a server that answers
// client:get_dpe with an empty ack (the python-sdk reference server,
// A2C-SMCP 0.3) does not route it, so hits are found but not opened here.
// Other errors are returned unchanged.
func OpenError(err error) error {
	if errors.Is(err, client.ErrNotRouted) {
		return &notRoutedOpen{err: err}
	}
	return err
}

// notRoutedOpen says the whole story in one line; the empty-ack error it
// wraps would only repeat "did not route client:get_dpe".
type notRoutedOpen struct{ err error }

func (e *notRoutedOpen) Error() string {
	return "cannot open the hit: this server does not route client:get_dpe (the python-sdk reference server and A2C-SMCP 0.3 do not); search works through client:tool_call, opening needs get_dpe"
}

func (e *notRoutedOpen) Unwrap() error { return e.err }

// Grouped is a hit and the same place in identical copies of its
// document: other URIs (or computers) with the same title, page,
// element and snippet.
type Grouped struct {
	Hit
	// Copies are the other hits, in the order Merge gave them.
	Copies []Hit
}

// Group folds the hits of identical copies into the first (best placed)
// of them, keeping the order of hits: a document kept in three folders
// is one row with two copies, not three rows.
func Group(hits []Hit) []Grouped {
	type key struct {
		title, element, snippet, category string
		page                              int
	}
	at := map[key]int{}
	var out []Grouped
	for _, h := range hits {
		k := key{h.Title, h.ElementID, h.Snippet, h.Category, h.Page}
		i, seen := at[k]
		if seen && (h.URI != out[i].URI || h.Computer != out[i].Computer) {
			out[i].Copies = append(out[i].Copies, h)
			continue
		}
		if !seen {
			at[k] = len(out)
		}
		out = append(out, Grouped{Hit: h})
	}
	return out
}
