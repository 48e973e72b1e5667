package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

type lsFlags struct {
	globalFlags
	Computer     string
	Server       string
	All          bool
	LimitPages   int
	MaxPages     int
	MaxResources int
	JSON         bool
}

func runLs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f lsFlags
	fs := flag.NewFlagSet("ls", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	fs.StringVar(&f.Computer, "computer", "", "computer name (default: every computer)")
	fs.StringVar(&f.Server, "server", "", "MCP server name (default: every server)")
	fs.BoolVar(&f.All, "all", false, "list resources of every scheme, not only dpe://")
	fs.IntVar(&f.LimitPages, "limit-pages", 0, "stop after N cursor pages per server (0: all, up to the page cap)")
	fs.BoolVar(&f.JSON, "json", false, "one JSON object per line")
	fs.IntVar(&f.MaxPages, "max-pages", 10000, "give up after this many cursor pages per server (guards against endless cursors)")
	fs.IntVar(&f.MaxResources, "max-resources", client.DefaultMaxResources, "give up after this many resources per server (guards against endless cursors)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := f.validate(); err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("ls needs one of: computers, servers, resources")
	}
	what := pos[0]
	switch what {
	case "computers", "servers", "resources":
	default:
		return usageErrorf("ls %q: want computers, servers or resources", what)
	}
	if f.LimitPages < 0 {
		return usageErrorf("--limit-pages must be ≥ 0")
	}
	if f.MaxPages <= 0 || f.MaxResources <= 0 {
		return usageErrorf("--max-pages and --max-resources must be ≥ 1")
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

	out := newTable(stdout, f.JSON)
	defer out.flush()

	computers, err := c.Computers(ctx)
	if err != nil {
		return fmt.Errorf("list computers: %w", err)
	}
	sort.Slice(computers, func(i, j int) bool { return computers[i].Name < computers[j].Name })
	if f.Computer != "" {
		found := false
		for _, s := range computers {
			if s.Name == f.Computer {
				computers, found = []sessionInfo{s}, true
				break
			}
		}
		if !found {
			return fmt.Errorf("computer %q is not in office %s", f.Computer, t.Office)
		}
	}

	if what == "computers" {
		out.header("NAME", "A2C_VERSION", "SID")
		for _, s := range computers {
			out.row(map[string]any{"name": s.Name, "a2c_version": s.A2CVersion, "sid": s.SID},
				s.Name, s.A2CVersion, s.SID)
		}
		return nil
	}

	if what == "servers" {
		out.header("COMPUTER", "SERVER", "TYPE", "DISABLED")
	} else {
		out.header("COMPUTER", "SERVER", "URI", "NAME", "MIME", "PAGES", "TYPE", "KEYWORDS")
	}
	for _, comp := range computers {
		cfg, err := c.Config(ctx, comp.Name)
		if err != nil {
			return fmt.Errorf("get_config on %s: %w", comp.Name, err)
		}
		matched := false
		for _, srv := range cfg.Servers {
			if f.Server != "" && srv.Name != f.Server {
				continue
			}
			matched = true
			if what == "servers" {
				out.row(map[string]any{"computer": comp.Name, "server": srv.Name, "type": srv.Type, "disabled": srv.Disabled},
					comp.Name, srv.Name, srv.Type, strconv.FormatBool(srv.Disabled))
				continue
			}
			if srv.Disabled {
				continue
			}
			if err := listResources(ctx, c, comp.Name, srv.Name, &f, out, stderr); err != nil {
				return err
			}
		}
		if f.Server != "" && !matched && f.Computer != "" {
			return fmt.Errorf("server %q not found on computer %s", f.Server, comp.Name)
		}
	}
	return nil
}

type sessionInfo = protocol.SessionInfo

func listResources(ctx context.Context, c *client.Client, computer, server string, f *lsFlags, out *table, stderr io.Writer) error {
	// The pager's cap guards against servers that mint endless cursors; a
	// listing the user asked for in full may legitimately be long.
	p := c.Pager(computer, server, client.PagerOptions{MaxPages: f.MaxPages, MaxResources: f.MaxResources})
	pages := 0
	for {
		if f.LimitPages > 0 && pages >= f.LimitPages {
			if !p.Done() {
				fmt.Fprintf(stderr, "dpe-tui: %s/%s: stopped after %d page(s), %d resources; more available\n", computer, server, pages, p.Loaded())
			}
			return nil
		}
		page, err := p.Next(ctx)
		if errors.Is(err, io.EOF) {
			return p.Err()
		}
		var ce *client.CursorError
		if errors.As(err, &ce) {
			return err // already names the server, computer and counts
		}
		if err != nil {
			return fmt.Errorf("get_resources %s on %s: %w", server, computer, err)
		}
		pages++
		for _, r := range page.Resources {
			if !f.All && !r.IsDPE() {
				continue
			}
			pc := ""
			if r.Meta.PageCount > 0 {
				pc = strconv.Itoa(r.Meta.PageCount)
			}
			out.row(map[string]any{
				"computer": computer, "server": server, "uri": r.URI, "name": r.Name,
				"mime_type": r.MimeType, "page_count": r.Meta.PageCount, "file_type": r.Meta.FileType,
				"keywords": r.Meta.Keywords, "description": r.Description,
			}, computer, server, r.URI, r.Name, r.MimeType, pc, r.Meta.FileType, strings.Join(r.Meta.Keywords, ","))
		}
		// Stream: each page is printed as it arrives, its columns aligned
		// within the page, so a long listing never piles up in memory.
		out.flush()
		if p.Done() {
			return p.Err() // nil at the end; a cursor refused with the last page
		}
	}
}

// table prints aligned columns for people, or JSON lines for scripts.
// Every cell is untrusted and sanitized; JSON output escapes by itself.
// Columns are aligned between flushes (a page of resources), each cell
// capped at 80 cells, so memory stays bounded by one page.
type table struct {
	json bool
	w    io.Writer
	tw   *tabwriter.Writer
	enc  *json.Encoder
}

func newTable(w io.Writer, asJSON bool) *table {
	t := &table{json: asJSON, w: w}
	if asJSON {
		t.enc = json.NewEncoder(w)
	} else {
		t.tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	}
	return t
}

func (t *table) header(cols ...string) {
	if !t.json {
		fmt.Fprintln(t.tw, strings.Join(cols, "\t"))
	}
}

func (t *table) row(obj map[string]any, cells ...string) {
	if t.json {
		_ = t.enc.Encode(sanitizeJSONValue(obj))
		return
	}
	for i, c := range cells {
		c = sanitize.Truncate(sanitize.Line(c), 80)
		if c == "" {
			c = "-"
		}
		cells[i] = strings.ReplaceAll(c, "\t", " ")
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() {
	if t.tw != nil {
		t.tw.Flush()
	}
}

// sanitizeJSONValue cleans strings before encoding: JSON escaping makes
// control bytes harmless in the stream, but a consumer that prints the
// decoded value to a terminal would still receive them.
func sanitizeJSONValue(v any) any {
	switch x := v.(type) {
	case string:
		return sanitize.Text(x)
	case []string:
		out := make([]string, len(x))
		for i, s := range x {
			out[i] = sanitize.Text(s)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			out[k] = sanitizeJSONValue(val)
		}
		return out
	}
	return v
}
