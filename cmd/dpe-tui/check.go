package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// shownValueCells bounds the offending value on a text report line; the
// JSON report carries it whole (as bounded by dpe.MaxValueBytes).
const shownValueCells = 60

type checkFlags struct {
	globalFlags
	Computer string
	JSON     bool
	Rules    bool
	Ignore   string
	Strict   bool
	Progress bool
	Jobs     int
}

func (a *app) checkCmd() *cobra.Command {
	f := &checkFlags{}
	cmd := &cobra.Command{
		Use:   "check URI|FILE|URL|-",
		Short: "Check a document against the DPE conformance rules (exit 4 on violations)",
		Long: "check opens a document like get (- reads standard input as get does), fetches its\n" +
			"manifest pages a few at a time, and prints one finding per line with its JSON path, or\n" +
			"JSON Lines with --json. It exits 4 when there are violations (with --strict, warnings too).",
		Example: `  dpe-tui check report.dpe.json
  dpe-tui check dpe://io.github.dpetui.library/report.md --json --strict
  cat doc.dpe.json | dpe-tui check - --ignore DPE-E012
  dpe-tui check --rules`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErrorf("check needs exactly one dpe:// URI, file path, URL or -")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			a.with(&f.globalFlags, "check")
			input := ""
			if len(args) == 1 {
				var cleanup func()
				var err error
				if input, cleanup, err = a.stdinArg(args[0]); err != nil {
					return err
				}
				defer cleanup()
			}
			return runCheck(a.ctx, f, input, a.stdout, a.stderr)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.Computer, "computer", "", "computer to ask for a dpe:// URI (default: the one that knows its host)")
	fs.BoolVar(&f.JSON, "json", false, "print JSON Lines: one object per finding (or per rule with --rules)")
	fs.BoolVar(&f.Rules, "rules", false, "list the rules (id, severity, name, what, source) and exit")
	fs.StringVar(&f.Ignore, "ignore", "", "comma-separated rule ids (or names) to silence, e.g. DPE-E012,DPE-E038")
	fs.BoolVar(&f.Strict, "strict", false, "report warnings as violations (for CI)")
	fs.BoolVar(&f.Progress, "progress", false, "show manifest page fetch progress on stderr even when it is not a terminal (it is shown on a terminal anyway)")
	fs.IntVar(&f.Jobs, "jobs", dpe.DefaultFetchWorkers, "manifest pages fetched at once")
	return cmd
}

// runCheck implements `check`: open like get, fetch manifest pages a few at
// a time, run every conformance rule, print one finding per line (or JSON
// Lines), exit exitViolations when there are violations. input "" is
// only valid with --rules.
func runCheck(ctx context.Context, f *checkFlags, input string, stdout, stderr io.Writer) error {
	var pos []string
	if input != "" {
		pos = []string{input}
	}
	if err := f.validate(); err != nil {
		return err
	}
	var ignore []string
	for _, id := range strings.Split(f.Ignore, ",") {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		if _, ok := dpe.RuleByID(id); !ok {
			return &usageError{msg: fmt.Sprintf("--ignore: no rule %q", sanitize.Line(id)), hint: "dpe-tui check --rules"}
		}
		ignore = append(ignore, id)
	}
	if f.Jobs < 1 || f.Jobs > 64 {
		return usageErrorf("--jobs must be 1–64, not %d", f.Jobs)
	}
	if f.Rules {
		if len(pos) != 0 {
			return usageErrorf("check --rules takes no document")
		}
		return printRules(stdout, f.JSON)
	}
	if len(pos) != 1 {
		return usageErrorf("check needs exactly one dpe:// URI, file path or URL")
	}

	log, closeLog, err := f.logger()
	if err != nil {
		return err
	}
	defer closeLog()
	// The listing entry is looked up first, on a connection of its own
	// that is closed before the document's (an office has one agent).
	listing := listingEntry(ctx, &f.globalFlags, f.Computer, pos[0], log)
	op, opener, cleanup, err := openInput(ctx, &f.globalFlags, f.Computer, pos[0], convertFetchedText, log, stderr)
	if err != nil {
		return err
	}
	defer cleanup()
	if op.Kind != dpe.KindDocument {
		return fmt.Errorf("content at %s is %s, not a DPE document", sanitize.Line(dpe.RedactURI(op.Access.URI)), kindName(op.Kind))
	}
	var progress func(done, total int)
	if f.Progress || isTerminal(stderr) {
		progress = progressLine(stderr, isTerminal(stderr))
	}
	loaded := opener.LoadManifestPages(ctx, op, f.Jobs, progress)
	if err := ctx.Err(); err != nil {
		return err
	}
	findings := opener.Check(op, dpe.CheckOptions{Ignore: ignore, Strict: f.Strict, Loaded: loaded, Extra: identity.Check(op.Body),
		Answer: op.Access.RawJSON, Listing: listing})
	return writeReport(stdout, op.Doc, findings, f.JSON)
}

// listingEntry finds input's entry in the listings of the office at --url
// (on --computer, else on every computer), so check can hold it to the
// rules too; nil when input is not a dpe:// URI, there is no --url (an
// embedded office is started by openInput), or no listing names it. A
// failure here only costs those findings: it is logged, not returned.
func listingEntry(ctx context.Context, g *globalFlags, computer, input string, log *slog.Logger) []byte {
	uri, err := dpe.NormalizeURI(input)
	if g.URL == "" || err != nil || !strings.HasPrefix(strings.ToLower(input), "dpe:") {
		return nil
	}
	c, err := dial(ctx, g, &target{URL: g.URL, Office: g.Office}, log)
	if err != nil {
		log.Debug("check: no listing entry", "uri", uri, "err", err)
		return nil
	}
	defer c.Close()
	comps := []string{computer}
	if computer == "" {
		all, err := c.Computers(ctx)
		if err != nil {
			return nil
		}
		comps = comps[:0]
		for _, s := range all {
			comps = append(comps, s.Name)
		}
	}
	for _, comp := range comps {
		cfg, err := c.Config(ctx, comp)
		if err != nil {
			continue
		}
		for _, srv := range cfg.Servers {
			p := c.Pager(comp, srv.Key, client.PagerOptions{MaxPages: 100})
			for !p.Done() && ctx.Err() == nil {
				page, err := p.Next(ctx)
				if err != nil {
					break
				}
				for _, r := range page.Resources {
					if r.URI == uri {
						b, _ := json.Marshal(r.Resource)
						return b
					}
				}
			}
		}
	}
	return nil
}

// checkLine is one finding of `check --json`.
type checkLine struct {
	Rule      string  `json:"rule"`
	Name      string  `json:"name"`
	Severity  string  `json:"severity"`
	Path      string  `json:"path"`
	Page      *int    `json:"page"`       // page_index; null for the document
	ElementID *string `json:"element_id"` // null when none
	Message   string  `json:"message"`
	Value     string  `json:"value"`
	Source    string  `json:"source"`
}

func writeReport(w io.Writer, d *dpe.Document, findings []dpe.Finding, asJSON bool) error {
	var n [3]int
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, fd := range findings {
		if int(fd.Severity) < len(n) {
			n[fd.Severity]++
		}
		r := fd.RuleInfo()
		if asJSON {
			l := checkLine{Rule: fd.ID, Name: fd.Rule, Severity: fd.Severity.String(), Path: sanitize.Line(fd.Path),
				Message: sanitize.Line(fd.Message), Value: sanitize.Line(fd.Value), Source: r.Source}
			if fd.PageIndex >= 0 {
				p := fd.PageIndex
				l.Page = &p
			}
			if fd.ElementID != "" {
				id := sanitize.Line(fd.ElementID)
				l.ElementID = &id
			}
			if err := enc.Encode(l); err != nil {
				return err
			}
			continue
		}
		line := fmt.Sprintf("%-9s %s %s  %s", fd.Severity, fd.ID, sanitize.Line(fd.Path), sanitize.Line(fd.Message))
		if fd.Value != "" {
			line += "  value: " + sanitize.Truncate(sanitize.Line(fd.Value), shownValueCells)
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	if !asJSON {
		fmt.Fprintf(w, "%s: %d page(s), %d violation(s), %d warning(s), %d note(s)\n",
			sanitize.Line(d.Title), len(d.Pages), n[dpe.Violation], n[dpe.Warning], n[dpe.Note])
	}
	if n[dpe.Violation] > 0 {
		return &violationsError{n[dpe.Violation]}
	}
	return nil
}

// ruleLine is one rule of `check --rules --json`.
type ruleLine struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Severity string `json:"severity"`
	What     string `json:"what"`
	Source   string `json:"source"`
}

func printRules(w io.Writer, asJSON bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range dpe.Rules() {
		var err error
		if asJSON {
			err = enc.Encode(ruleLine{ID: r.ID, Name: r.Name, Severity: r.Severity.String(), What: r.What, Source: r.Source})
		} else {
			_, err = fmt.Fprintf(w, "%s  %-9s  %-26s  %s  [%s]\n", r.ID, r.Severity, r.Name, r.What, r.Source)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// progressLine reports manifest fetches: on a terminal one line rewritten
// in place, elsewhere a line per tenth of the pages (logs stay short).
func progressLine(w io.Writer, tty bool) func(done, total int) {
	lastTenth := -1
	return func(done, total int) {
		if tty {
			fmt.Fprintf(w, "\rfetching manifest pages %d/%d", done, total)
			if done == total {
				fmt.Fprintln(w)
			}
			return
		}
		if t := done * 10 / total; t != lastTenth || done == total {
			lastTenth = t
			fmt.Fprintf(w, "fetching manifest pages %d/%d\n", done, total)
		}
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	// A terminal, not any character device: /dev/null is one too.
	return term.IsTerminal(f.Fd())
}
