package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/computer"
	"github.com/dpe-tui/dpe-tui/internal/jsonfast"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
	"github.com/dpe-tui/dpe-tui/stack"
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

func (a *app) lsCmd() *cobra.Command {
	f := &lsFlags{}
	cmd := &cobra.Command{
		Use:   "ls computers|servers|resources|desktop|skills",
		Short: "List the office's computers, their MCP servers, resources, desktops or skills",
		Long: "ls lists what the office holds: its computers, each computer's MCP servers, their resources\n" +
			"(dpe:// only unless --all), each computer's desktop windows or its skills. A server that cannot list is\n" +
			"skipped with one line on stderr; the others are listed.",
		Example: `  dpe-tui ls computers --url http://127.0.0.1:7800
  dpe-tui ls resources --computer alpha --server library --json
  dpe-tui --url http://127.0.0.1:7800 ls servers --computer beta`,
		Args:      exactArgs(1, "ls needs one of: computers, servers, resources, desktop, skills"),
		ValidArgs: []cobra.Completion{"computers", "servers", "resources", "desktop", "skills"},
		RunE: func(cmd *cobra.Command, args []string) error {
			a.with(&f.globalFlags, "ls")
			return runLs(a.ctx, f, args[0], a.stdout, a.stderr)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.Computer, "computer", "", "computer name (default: every computer)")
	fs.StringVar(&f.Server, "server", "", "the MCP server (default: every server)")
	fs.BoolVar(&f.All, "all", false, "list resources of every scheme, not only dpe://")
	fs.IntVar(&f.LimitPages, "limit-pages", 0, "stop after N cursor pages per server (0: all, up to the page cap)")
	fs.BoolVar(&f.JSON, "json", false, "one JSON object per line")
	fs.IntVar(&f.MaxPages, "max-pages", 10000, "give up after this many cursor pages per server (guards against endless cursors)")
	fs.IntVar(&f.MaxResources, "max-resources", client.DefaultMaxResources, "give up after this many resources per server (guards against endless cursors)")
	return cmd
}

func runLs(ctx context.Context, f *lsFlags, what string, stdout, stderr io.Writer) (retErr error) {
	if err := f.validate(); err != nil {
		return err
	}
	switch what {
	case "desktop":
		return lsDesktop(ctx, f, stdout, stderr)
	case "computers", "servers", "resources", "skills":
	default:
		return usageErrorf("ls %q: want computers, servers, resources, desktop or skills", sanitize.Line(what))
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
	// Every error also goes to --log, with the details the screen omits.
	defer func() { logError(log, "ls", retErr) }()
	t, err := resolveTarget(ctx, &f.globalFlags, log)
	if err != nil {
		return err
	}
	defer t.Close()
	printLocalNotes(t, stderr)
	c, err := dial(ctx, &f.globalFlags, t, log)
	if err != nil {
		return err
	}
	defer c.Close()

	out := newTable(stdout, f.JSON)
	defer out.flush()
	if what == "resources" {
		defer listingGC()()
	}

	computers, err := c.Computers(ctx)
	if err != nil {
		return fmt.Errorf("list computers: %w", err)
	}
	// An office nobody joined looks like an empty one; either way a
	// listing of it cannot hold what the user asked for.
	if len(computers) == 0 {
		return fmt.Errorf("office %s has no computers (check --office)", sanitize.Line(t.Office))
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
			return fmt.Errorf("computer %s is not in office %s", sanitize.Line(f.Computer), sanitize.Line(t.Office))
		}
	}

	if what == "skills" {
		return lsSkills(ctx, c, computers, out, stderr)
	}
	if what == "computers" {
		out.header("NAME", "A2C_VERSION", "SID")
		for _, s := range computers {
			out.row(lsComputer{Name: sanitize.Text(s.Name), A2CVersion: sanitize.Text(s.A2CVersion), SID: sanitize.Text(s.SID)},
				s.Name, s.A2CVersion, s.SID)
		}
		return nil
	}

	// The user's own computer is in this process: its servers' start-up
	// states are known (the wire has none).
	local := map[string]computer.ServerState{}
	if t.demo != nil && t.demo.Local() != nil {
		for _, s := range t.demo.Local().States() {
			local[s.Name] = s
		}
	}
	// Every computer's config is read first: whether a KEY column is
	// needed depends on all of them, and --server is matched on each.
	type compServers struct {
		name    string
		servers []client.ServerConfig
	}
	var st lsStatus
	var comps []compServers
	showKey := false
	for _, comp := range computers {
		cfg, err := c.Config(ctx, comp.Name)
		if err != nil {
			if fatalListErr(ctx, err) {
				return fmt.Errorf("get_config on %s: %w", comp.Name, err)
			}
			st.skip(stderr, fmt.Sprintf("computer %s", comp.Name), err)
			continue
		}
		servers := cfg.Servers
		if len(servers) == 0 && f.Server == "" {
			// Nothing to list is not nothing to say: without a word the
			// empty table looks like a listing that failed silently.
			st.empty++
			fmt.Fprintf(stderr, "dpe-tui: computer %s has no MCP servers\n", sanitize.Line(comp.Name))
			continue
		}
		if f.Server != "" {
			sc, ok, err := client.MatchServer(comp.Name, cfg.Servers, f.Server)
			if err != nil {
				return usageErrorf("%s", sanitize.Line(err.Error()))
			}
			servers = nil
			if ok {
				servers = []client.ServerConfig{sc}
			}
		}
		showKey = showKey || client.KeysDiffer(servers)
		comps = append(comps, compServers{comp.Name, servers})
	}
	// Only servers this process started have a state: the protocol
	// reports none for a remote computer's, so a listing of those alone
	// has no STATE column rather than a column of dashes.
	showState := false
	for _, comp := range comps {
		for _, srv := range comp.servers {
			if _, ok := local[string(srv.Key)]; ok && comp.name == stack.ComputerLocal {
				showState = true
			}
		}
	}
	if what == "servers" {
		cols := []string{"COMPUTER", "SERVER", "KEY", "TYPE", "DISABLED", "STATE"}
		if !showKey {
			cols = slices.Delete(cols, 2, 3)
		}
		if !showState {
			cols = cols[:len(cols)-1]
		}
		out.header(cols...)
	} else {
		out.header("COMPUTER", "SERVER", "URI", "NAME", "MIME", "PAGES", "TYPE", "KEYWORDS", "MODIFIED", "SIZE")
		// The URI is what a reader copies to get or open: kept whole while
		// the columns that say least (the same MIME on every row, a size
		// most servers leave out) are left out first.
		out.priorities(stderr, 2, 4, 9, 7, 8, 0, 6, 5)
	}
	// One computer's or one server's error is theirs: it is noted on
	// stderr in one line and the others are still listed. A stopped
	// listing (repeated cursor, caps) is an error of the run even though
	// its rows were printed.
	matched := false
	for _, comp := range comps {
		names := map[string]int{}
		for _, srv := range comp.servers {
			names[srv.Name]++
		}
		for _, srv := range comp.servers {
			matched = true
			// A server whose name another server of its computer shares
			// is named with its key too, so that the two are told apart;
			// a name of its own is enough (ls servers has a KEY column).
			label := srv.Name
			if names[srv.Name] > 1 && string(srv.Key) != srv.Name {
				label = srv.Name + " (" + string(srv.Key) + ")"
			}
			if what == "servers" {
				typ, state := string(srv.Type), ""
				if ls, ok := local[string(srv.Key)]; ok && comp.name == stack.ComputerLocal {
					typ, state = ls.Type, localState(ls)
					if ls.Status == computer.ServerFailed {
						fmt.Fprintf(stderr, "dpe-tui: server %s on %s failed: %s\n", sanitize.Line(srv.Name), comp.name, sanitize.Line(ls.Err))
						for _, l := range lastLines(ls.StderrTail, 5) {
							fmt.Fprintf(stderr, "dpe-tui:   %s\n", sanitize.Line(l))
						}
					}
				}
				row := lsServer{Computer: sanitize.Text(comp.name), Server: sanitize.Text(srv.Name), Key: sanitize.Text(string(srv.Key)),
					Type: sanitize.Text(typ), Disabled: srv.Disabled, State: state}
				cells := []string{comp.name, srv.Name, string(srv.Key), typ, strconv.FormatBool(srv.Disabled), state}
				if !showKey {
					cells = slices.Delete(cells, 2, 3)
				}
				if !showState {
					cells = cells[:len(cells)-1]
				}
				out.row(row, cells...)
				st.listed++
				continue
			}
			if srv.Disabled {
				if f.Server != "" {
					st.skip(stderr, fmt.Sprintf("server %s on %s", label, comp.name), errors.New("disabled"))
				}
				continue
			}
			err := listResources(ctx, c, comp.name, srv, label, f, out, stderr)
			out.flush()
			var ce *client.CursorError
			switch {
			case err == nil:
				st.listed++
			case errors.As(err, &ce):
				st.listed++
				st.stopped++
				fmt.Fprintf(stderr, "dpe-tui: %s\n", sanitize.Line(sanitize.URLsIn(err.Error())))
			case fatalListErr(ctx, err):
				return fmt.Errorf("get_resources %s on %s: %w", label, comp.name, err)
			default:
				st.skip(stderr, fmt.Sprintf("server %s on %s", label, comp.name), err)
			}
		}
	}
	if f.Server != "" && !matched {
		where := "any computer of office " + t.Office
		if f.Computer != "" {
			where = "computer " + f.Computer
		}
		return fmt.Errorf("server %s not found on %s", sanitize.Line(f.Server), sanitize.Line(where))
	}
	switch {
	case st.stopped > 0:
		return &exitError{code: exitRuntime}
	case st.listed == 0 && st.skipped > 0:
		return &exitError{code: exitNothingListed, msg: fmt.Sprintf("nothing could be listed: %d skipped", st.skipped)}
	case st.listed == 0 && st.empty > 0:
		// Each empty computer was named on stderr already.
		return &exitError{code: exitNothingListed}
	}
	return nil
}

// listingGC lets the heap grow to five times what is live (GOGC=400)
// while resources are listed, under a soft limit of 256 MiB, and returns
// the function that restores the settings. A listing keeps a few pages
// live (a few MB) and allocates some 250 KB per page: at the default
// GOGC=100 it collects every dozen pages, and collection was half of the
// agent's CPU on a 100,000-resource listing. The limit bounds what the
// larger target may cost when pages are large. A GOGC or GOMEMLIMIT the
// user set is left alone.
func listingGC() (restore func()) { return gcTarget(400, 256<<20) }

// lsStatus counts what a listing did, for its exit status; empty counts
// the computers that have no MCP servers at all.
type lsStatus struct{ listed, skipped, stopped, empty int }

// skip notes on stderr that what was left out, and why, in one line.
func (s *lsStatus) skip(stderr io.Writer, what string, err error) {
	s.skipped++
	// The computer's own error says it best; the wrapping around it
	// would only repeat the server's name.
	var pe *protocol.Error
	if errors.As(err, &pe) {
		err = pe
	}
	fmt.Fprintf(stderr, "dpe-tui: skipped %s: %s\n", sanitize.Line(what), sanitize.Line(sanitize.URLsIn(err.Error())))
}

// fatalListErr: errors that no other server can escape either.
func fatalListErr(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, client.ErrConnectionLost) || errors.Is(err, client.ErrClosed) ||
		errors.Is(err, client.ErrLeft)
}

type sessionInfo = protocol.SessionInfo

// listResources prints server's resources on computer, page by page.
//
// The fetch runs one page ahead of the printing: a goroutine owns the pager
// and asks for the next page as soon as the previous one is decoded, while
// this one sanitizes and prints it, so the server works on page N+1 while
// page N is decoded and written out. Pages, and the error that ends a listing, arrive
// in order through a channel of one; at most three pages are held (one
// printing, one queued, one arriving). No page past --limit-pages or the
// pager's caps is asked for.
func listResources(ctx context.Context, c *client.Client, computer string, srv client.ServerConfig, server string, f *lsFlags, out *table, stderr io.Writer) error {
	// The pager's cap guards against servers that mint endless cursors; a
	// listing the user asked for in full may legitimately be long.
	// Metadata is parsed here, on the printing side, not while the next
	// request waits to go out.
	p := c.Pager(computer, srv.Key, client.PagerOptions{MaxPages: f.MaxPages, MaxResources: f.MaxResources, DeferMeta: true})
	pages := prefetchPages(ctx, p, f.LimitPages)
	defer pages.stop()
	npages, shown, hidden := 0, 0, 0
	for {
		fp, ok := <-pages.ch
		if !ok { // --limit-pages reached, and the listing goes on
			fmt.Fprintf(stderr, "dpe-tui: %s/%s: stopped after %d page(s), %d resources; more available\n", computer, server, npages, pages.loaded)
			return onlyNonDPE(nil, shown, hidden)
		}
		if errors.Is(fp.err, io.EOF) {
			return onlyNonDPE(fp.stopped, shown, hidden)
		}
		if fp.err != nil {
			return fp.err // the caller names the server and computer
		}
		npages++
		for _, r := range fp.page.Resources {
			if !f.All && !r.IsDPE() {
				hidden++
				continue
			}
			shown++
			r.Meta = client.ParseResourceMeta(r.Resource.Meta, r.Annotations)
			printResource(out, stderr, computer, server, srv, &r)
		}
		// Stream: each page is printed as it arrives, its columns aligned
		// within the page, so a long listing never piles up in memory.
		out.flush()
		if fp.done {
			// nil at the end; a cursor refused with the last page
			return onlyNonDPE(fp.stopped, shown, hidden)
		}
	}
}

// printResource prints one resource's row, and its problems on stderr.
// server is the SERVER cell (the name, with the key where names collide);
// JSON has the name and the key apart.
func printResource(out *table, stderr io.Writer, computer, server string, srv client.ServerConfig, r *client.Resource) {
	if out.json {
		row := lsResource{
			Computer: sanitize.Text(computer), Server: sanitize.Text(srv.Name), Key: sanitize.Text(string(srv.Key)), URI: sanitize.Text(r.URI), Name: sanitize.Text(r.Name),
			MimeType: sanitize.Text(r.MimeType),
			Keywords: sanitizeAll(r.Meta.Keywords), Description: sanitize.Text(r.Description),
			Size: r.Size, Problems: sanitizeAll(r.Meta.Problems),
		}
		if r.Meta.PageCount > 0 {
			n := r.Meta.PageCount
			row.PageCount = &n
		}
		if r.Meta.FileType != "" {
			ft := sanitize.Text(r.Meta.FileType)
			row.FileType = &ft
		}
		if r.Meta.LastModified != "" {
			lm := sanitize.Text(r.Meta.LastModified)
			row.LastModified = &lm
		}
		if r.Meta.ConversionError != "" {
			ce := sanitize.Text(r.Meta.ConversionError)
			row.ConversionError = &ce
		}
		out.rowJSON(row)
	} else {
		pc := ""
		if r.Meta.PageCount > 0 {
			pc = strconv.Itoa(r.Meta.PageCount)
		}
		modified := r.Meta.LastModified
		if r.Meta.LastModifiedInvalid {
			modified = "invalid: " + modified
		}
		size := ""
		if r.Size != nil {
			size = strconv.FormatInt(*r.Size, 10)
		}
		out.rowCells(computer, server, r.URI, r.Name, r.MimeType, pc, r.Meta.FileType, strings.Join(r.Meta.Keywords, ","), modified, size)
	}
	for _, pr := range r.Meta.Problems {
		fmt.Fprintf(stderr, "dpe-tui: %s: %s\n", sanitize.Line(r.URI), sanitize.Line(pr))
	}
	if ce := r.Meta.ConversionError; ce != "" && !out.json {
		fmt.Fprintf(stderr, "dpe-tui: %s cannot be converted: %s\n", sanitize.Line(r.URI), sanitize.Line(ce))
	}
}

// fetchedPage is one answer of the pager, with the pager's state after it
// (the pager itself belongs to the fetching goroutine).
type fetchedPage struct {
	page    *client.ResourcePage
	err     error // from Next: io.EOF at the end, or what stopped the walk
	done    bool  // p.Done() after this page
	stopped error // p.Err() after this page
}

// pageFeed is the fetching side of listResources.
type pageFeed struct {
	ch     chan fetchedPage
	cancel context.CancelFunc
	// quit, not the context, releases a blocked send: a cancelled ctx
	// must still deliver the fetch's error to the printer, in order.
	quit   chan struct{}
	exited chan struct{}
	// loaded is the pager's count when the feed stopped at its page
	// limit; written before ch is closed, read only after.
	loaded int
}

// prefetchPages starts fetching p's pages, at most limit of them (0: no
// limit). The feed sends nothing after a page that ends the listing (done)
// or an error (io.EOF included), and closes ch when it ends; a close with
// no such page before it means the limit was reached with more available.
// stop cancels a fetch in flight and waits for the goroutine to end.
func prefetchPages(ctx context.Context, p *client.Pager, limit int) *pageFeed {
	ctx, cancel := context.WithCancel(ctx)
	pf := &pageFeed{ch: make(chan fetchedPage, 1), cancel: cancel, quit: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(pf.exited)
		defer close(pf.ch)
		for n := 0; limit == 0 || n < limit; n++ {
			page, err := p.Next(ctx)
			fp := fetchedPage{page: page, err: err, done: p.Done(), stopped: p.Err()}
			select {
			case pf.ch <- fp:
			case <-pf.quit: // the printer left
				return
			}
			if err != nil || fp.done {
				return
			}
		}
		pf.loaded = p.Loaded() // before the close, which publishes it
	}()
	return pf
}

func (pf *pageFeed) stop() {
	close(pf.quit)
	pf.cancel()
	<-pf.exited
}

// errOnlyNonDPE: a server listed resources, none of them dpe:// (without
// --all). Its table would be empty with no word why; it is skipped with a
// note instead, so a listing of only such servers exits exitNothingListed.
type errOnlyNonDPE struct{ n int }

func (e *errOnlyNonDPE) Error() string {
	return fmt.Sprintf("it lists %d non-dpe resource(s) and no dpe:// one (--all lists them)", e.n)
}

func onlyNonDPE(err error, shown, hidden int) error {
	if err == nil && shown == 0 && hidden > 0 {
		return &errOnlyNonDPE{n: hidden}
	}
	return err
}

// table prints aligned columns for people, or JSON lines for scripts.
// Every cell is untrusted and sanitized; JSON output escapes by itself.
// Columns are aligned between flushes (a page of resources), each cell
// capped at 80 cells, so memory stays bounded by one page. Output is held
// until flush and written in one piece (a listing of 100,000 rows is not
// 100,000 writes).
type table struct {
	json bool
	w    io.Writer
	// rows wait for flush, which pads every column to its widest cell
	// in display cells (ansi.StringWidth: wide and combining characters
	// count as the terminal draws them, which tabwriter's rune count
	// does not).
	rows [][]string
	// buf holds the JSON lines, or the padded lines, not yet written.
	buf []byte
	// cols is the header, printed before the first row: a listing with
	// no rows prints nothing at all.
	cols []string
	// widths are the column widths so far: a flush pads to them or wider,
	// so a later page lines up with the header and the pages before it.
	// A wider cell widens its column from there on (none is over 80), and
	// the header (head) is printed again above the rows it widened.
	widths []int
	// typical are the widths most cells of a column fit in so far (see
	// fit).
	typical []int
	head    []string
	// maxW is the cells a line may take (0: no limit). Past it the
	// columns in drop are left out, in that order, and then the widest
	// columns give way, cut with …, the key column last, so no line
	// wraps on the terminal.
	maxW int
	// key is the column a reader copies (a resource's URI, to pass to get
	// or open): it is cut only when no other column can give way (-1:
	// none).
	key  int
	drop []int
	// noted: the columns a flush left out were said on stderr, once, so
	// a reader knows to widen the terminal or use --json.
	noted  bool
	stderr io.Writer
}

func newTable(w io.Writer, asJSON bool) *table {
	return &table{json: asJSON, w: w, maxW: outputWidth(w), key: -1}
}

// priorities names the table's key column (kept whole while others can
// give way) and the columns left out, in that order, when a line does not
// fit the terminal; stderr hears once which were left out.
func (t *table) priorities(stderr io.Writer, key int, drop ...int) {
	t.key, t.drop, t.stderr = key, drop, stderr
}

// outputWidth is the width table lines fit: $COLUMNS when it is set, else
// the terminal's width when w is one, else 0 (a pipe or a file gets whole
// cells; scripts want --json anyway).
func outputWidth(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(f.Fd()) {
		if cols, _, err := term.GetSize(f.Fd()); err == nil && cols > 0 {
			return cols
		}
	}
	return 0
}

// maxKeyCell bounds a key cell (a resource URI) in bytes.
const maxKeyCell = 4096

// minColumn is the narrowest a column is cut to when a line must fit.
const minColumn = 6

// fit is widths cut so a line of them (two spaces between columns) takes
// at most maxW cells: the columns in drop are left out first, in order
// (left: their indexes; a left-out column's width is -1), until the line
// would fit with every column at its typical width (what most of its
// cells need: one long name must not push out every other column); then
// the widest column gives way, none below minColumn (or its own width),
// the key column only when no other can (in the middle: its end tells
// rows apart). Leaving out a column a reader can ask for (a wider
// terminal, --json) beats cutting the ones kept: dropping only until the
// line would fit at minColumn cut short names to "archi…" and "libra…"
// beside a MIME column that says the same on every row. Piped (maxW 0),
// nothing is cut, the key not even to 80 cells.
func fit(widths, typical []int, maxW, key int, drop []int) (shown, left []int) {
	shown = slices.Clone(widths)
	if maxW <= 0 || len(shown) == 0 {
		return shown, nil
	}
	total := func(ws []int) int {
		n, cols := 0, 0
		for i, w := range ws {
			if shown[i] >= 0 {
				n, cols = n+w, cols+1
			}
		}
		return n + 2*max(0, cols-1)
	}
	for _, d := range drop {
		if total(typical) <= maxW {
			break
		}
		if d < len(shown) {
			shown[d], left = -1, append(left, d)
		}
	}
	for over := total(shown) - maxW; over > 0; over-- {
		widest := -1
		for i, w := range shown {
			if i != key && w > minColumn && (widest < 0 || w > shown[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			if key < 0 || shown[key] <= minColumn {
				break
			}
			widest = key
		}
		shown[widest]--
	}
	return shown, left
}

// typicalWidths is, per column, the width nine cells in ten of the rows
// below the header fit in, and the header's (at most the column's width so far): what fit
// leaves room for before it leaves a column out, so that one long cell is
// cut rather than every other column left out.
func typicalWidths(rows [][]string, head []string, widths []int) []int {
	out := make([]int, len(widths))
	cells := make([]int, 0, len(rows))
	for i := range widths {
		cells = cells[:0]
		for _, r := range rows {
			if i < len(r) && !slices.Equal(r, head) {
				cells = append(cells, ansi.StringWidth(r[i]))
			}
		}
		slices.Sort(cells)
		if len(cells) > 0 {
			out[i] = cells[(len(cells)-1)*9/10]
		}
		if i < len(head) {
			out[i] = max(out[i], ansi.StringWidth(head[i]))
		}
		out[i] = min(out[i], widths[i])
	}
	return out
}

func (t *table) header(cols ...string) {
	if !t.json {
		t.cols = cols
	}
}

// row prints one row: obj (a typed struct whose strings are already
// sanitized) as a JSON line, or cells as columns.
func (t *table) row(obj any, cells ...string) {
	if t.json {
		// json.Marshal is what json.Encoder writes, less the newline.
		if b, err := json.Marshal(obj); err == nil {
			t.buf = append(append(t.buf, b...), '\n')
		}
		return
	}
	t.rowCells(cells...)
}

// rowJSON is row for a resource, encoded without reflection: the same
// bytes as encoding/json (TestLsResourceJSON_SameAsEncodingJSON).
func (t *table) rowJSON(r lsResource) {
	t.buf = append(r.appendJSON(t.buf), '\n')
}

// rowCells is row for the columns only.
func (t *table) rowCells(cells ...string) {
	if t.cols != nil {
		t.rows = append(t.rows, t.cols)
		t.head, t.cols = t.cols, nil
	}
	for i, c := range cells {
		if i == t.key {
			// The key is copied whole (to get or open): bounded by the
			// longest URI a peer may send, not cut to the other cells'.
			c = sanitize.Line(c)
			if len(c) > maxKeyCell {
				c = sanitize.TruncateMiddle(c, maxKeyCell)
			}
		} else {
			c = sanitize.Truncate(sanitize.Line(c), 80)
		}
		if c == "" {
			c = "-"
		}
		cells[i] = strings.ReplaceAll(c, "\t", " ")
	}
	t.rows = append(t.rows, cells)
}

// flush prints the rows held, each column padded to its widest cell so
// far plus two spaces; the last column is not padded.
func (t *table) flush() {
	if len(t.rows) > 0 {
		printed := len(t.widths) > 0 // a flush before this one printed the header
		widths := slices.Clone(t.widths)
		for _, r := range t.rows {
			for i, c := range r {
				if i >= len(widths) {
					widths = append(widths, 0)
				}
				widths[i] = max(widths[i], ansi.StringWidth(c))
			}
		}
		if printed && t.head != nil && !slices.Equal(widths, t.widths) {
			t.rows = slices.Insert(t.rows, 0, t.head)
			for i, c := range t.head {
				widths[i] = max(widths[i], ansi.StringWidth(c))
			}
		}
		t.widths = widths
		// Typical widths only grow, as widths do: a later page leaves out
		// the columns the header left out, or more under a header again.
		typical := typicalWidths(t.rows, t.head, widths)
		for i := range min(len(typical), len(t.typical)) {
			typical[i] = max(typical[i], t.typical[i])
		}
		t.typical = typical
		shown, left := fit(widths, typical, t.maxW, t.key, t.drop)
		t.noteLeft(left)
		last := len(shown) - 1
		for last > 0 && shown[last] < 0 {
			last--
		}
		for _, r := range t.rows {
			start := len(t.buf)
			for i, c := range r {
				if shown[i] < 0 {
					continue
				}
				switch {
				case ansi.StringWidth(c) <= shown[i]:
				case i == t.key:
					c = sanitize.TruncateMiddle(c, shown[i])
				default:
					c = ansi.Truncate(c, shown[i], "…")
				}
				t.buf = append(t.buf, c...)
				if i < min(len(r)-1, last) {
					for range shown[i] - ansi.StringWidth(c) + 2 {
						t.buf = append(t.buf, ' ')
					}
				}
			}
			if line := string(t.buf[start:]); t.maxW > 0 && ansi.StringWidth(line) > t.maxW {
				// More columns than fit even at their narrowest.
				t.buf = append(t.buf[:start], ansi.Truncate(line, t.maxW, "…")...)
			}
			t.buf = append(t.buf, '\n')
		}
		t.rows = t.rows[:0]
	}
	if len(t.buf) > 0 {
		_, _ = t.w.Write(t.buf)
		t.buf = t.buf[:0]
	}
}

// noteLeft says once on stderr which columns a narrow terminal left out.
func (t *table) noteLeft(left []int) {
	if len(left) == 0 || t.noted || t.stderr == nil || t.head == nil {
		return
	}
	t.noted = true
	names := make([]string, 0, len(left))
	for _, i := range left {
		if i < len(t.head) {
			names = append(names, t.head[i])
		}
	}
	fmt.Fprintf(t.stderr, "dpe-tui: %d columns: %s left out (a wider terminal or --json shows them)\n", t.maxW, strings.Join(names, ", "))
}

// lsComputer, lsServer and lsResource are the JSON lines of ls --json:
// typed, so field names and order are stable; lists are [] not null.
type lsComputer struct {
	Name       string `json:"name"`
	A2CVersion string `json:"a2c_version"`
	SID        string `json:"sid"`
}

type lsServer struct {
	Computer string `json:"computer"`
	Server   string `json:"server"`
	Key      string `json:"key"` // the servers-map key: what --server and requests use
	Type     string `json:"type"`
	Disabled bool   `json:"disabled"`
	// State is a local server's start-up state; "" for a remote one.
	State string `json:"state,omitempty"`
}

// localState is a local server's STATE cell.
func localState(s computer.ServerState) string {
	if s.Status == computer.ServerReady && s.NoResources {
		return "no resources"
	}
	return string(s.Status)
}

// lastLines are the last n non-empty lines of s.
func lastLines(s string, n int) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

type lsResource struct {
	Computer     string   `json:"computer"`
	Server       string   `json:"server"`
	Key          string   `json:"key"`
	URI          string   `json:"uri"`
	Name         string   `json:"name"`
	MimeType     string   `json:"mime_type"`
	PageCount    *int     `json:"page_count"` // null when the server did not say (or said no integer ≥ 1)
	FileType     *string  `json:"file_type"`  // null when the server did not say
	Keywords     []string `json:"keywords"`
	Description  string   `json:"description"`
	LastModified *string  `json:"lastModified"` // null when the server did not say
	Size         *int64   `json:"size"`         // null when the server did not say
	Problems     []string `json:"problems"`     // [] when there are none, like keywords
	// ConversionError: the server could not convert the file (null when
	// it did, or has not tried yet).
	ConversionError *string `json:"conversion_error"`
}

// sanitizeAll cleans strings before encoding: JSON escaping makes control
// bytes harmless in the stream, but a consumer that prints the decoded
// value to a terminal would still receive them. Never nil: a list is []
// in JSON, not null.
func sanitizeAll(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = sanitize.Text(s)
	}
	return out
}

// appendJSON appends r as encoding/json encodes it (no newline): the same
// field order, HTML-safe escaping, \ufffd for invalid UTF-8, nil slices
// and pointers as null. A listing prints one per resource, and reflection
// was a tenth of the agent's time.
func (r *lsResource) appendJSON(b []byte) []byte {
	b = append(b, `{"computer":`...)
	b = jsonfast.AppendString(b, r.Computer)
	b = append(b, `,"server":`...)
	b = jsonfast.AppendString(b, r.Server)
	b = append(b, `,"key":`...)
	b = jsonfast.AppendString(b, r.Key)
	b = append(b, `,"uri":`...)
	b = jsonfast.AppendString(b, r.URI)
	b = append(b, `,"name":`...)
	b = jsonfast.AppendString(b, r.Name)
	b = append(b, `,"mime_type":`...)
	b = jsonfast.AppendString(b, r.MimeType)
	b = append(b, `,"page_count":`...)
	if r.PageCount == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*r.PageCount), 10)
	}
	b = append(b, `,"file_type":`...)
	if r.FileType == nil {
		b = append(b, "null"...)
	} else {
		b = jsonfast.AppendString(b, *r.FileType)
	}
	b = append(b, `,"keywords":`...)
	b = appendJSONStrings(b, r.Keywords)
	b = append(b, `,"description":`...)
	b = jsonfast.AppendString(b, r.Description)
	b = append(b, `,"lastModified":`...)
	if r.LastModified == nil {
		b = append(b, "null"...)
	} else {
		b = jsonfast.AppendString(b, *r.LastModified)
	}
	b = append(b, `,"size":`...)
	if r.Size == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *r.Size, 10)
	}
	b = append(b, `,"problems":`...)
	b = appendJSONStrings(b, r.Problems)
	b = append(b, `,"conversion_error":`...)
	if r.ConversionError == nil {
		b = append(b, "null"...)
	} else {
		b = jsonfast.AppendString(b, *r.ConversionError)
	}
	return append(b, '}')
}

func appendJSONStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonfast.AppendString(b, s)
	}
	return append(b, ']')
}
