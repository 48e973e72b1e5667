package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

type getFlags struct {
	globalFlags
	Computer string
	Page     int
	Format   string
	pageSet  bool   // --page was given: 0 is then a mistake, not "all"
	out      string // -o: where a non-dpe resource is saved
	server   string // --server: which of your own MCP servers reads it
	skill    string // --skill: print a skill's SKILL.md (or --path) instead
	skillRel string // --path: a file of the skill package
	export   render.ExportOptions
}

func (a *app) getCmd() *cobra.Command {
	f := &getFlags{}
	cmd := &cobra.Command{
		Use:   "get URI|FILE|URL|- | get --skill NAME [--path REL]",
		Short: "Print a document as Markdown, plain text or JSON",
		Long: "get prints a document: a dpe:// URI resolved through the office, a local file or a\n" +
			"file:// or http(s):// URL opened directly, or - for standard input\n" +
			"(a DPE JSON, or any file convert - reads).\n" +
			"--format md on a terminal is rendered (Glamour, in the --theme colours); piped, it is plain Markdown.\n" +
			"--skill NAME prints a skill's SKILL.md (or the file at --path) as a document; -o FILE writes its exact bytes.",
		Example: `  dpe-tui get dpe://io.github.dpetui.library/report.md --format text
  dpe-tui get report.pdf --page 2
  cat doc.dpe.json | dpe-tui get - --format json
  dpe-tui get --skill pdf-tools --path reference/forms.md`,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.with(&f.globalFlags, "get")
			if f.skill != "" {
				if len(args) != 0 {
					return usageErrorf("get --skill takes no URI or file")
				}
				return runGetSkill(a.ctx, f, a.stdout, a.stderr)
			}
			if f.skillRel != "" {
				return usageErrorf("--path names a file of a skill: give --skill too")
			}
			if len(args) != 1 {
				return usageErrorf("get needs exactly one dpe:// URI, file path, URL or -")
			}
			f.pageSet = cmd.Flags().Changed("page")
			input, cleanup, err := a.stdinArg(args[0])
			if err != nil {
				return err
			}
			defer cleanup()
			return runGet(a.ctx, f, input, a.stdout, a.stderr)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.Computer, "computer", "", "computer to ask for a dpe:// URI (default: the one that knows its host)")
	fs.IntVar(&f.Page, "page", 0, "print only page N (1-based)")
	fs.StringVar(&f.Format, "format", "md", "md, text or json")
	fs.StringVarP(&f.out, "out", "o", "", "save a non-dpe resource's contents into DIR (named from its URI) or to FILE")
	fs.StringVar(&f.skill, "skill", "", "print this skill's SKILL.md (client:get_skill)")
	fs.StringVar(&f.skillRel, "path", "", "with --skill: the file of the skill package to print, relative to its folder")
	fs.BoolVar(&f.export.Furniture, "furniture", false, "with --format md or text: keep running headers, footers and page numbers, which are left out by default")
	fs.StringVar(&f.server, "server", "", "which of your own MCP servers (--mcp-config) reads a non-dpe resource, when several list URIs like it")
	return cmd
}

// runGetSkill implements `get --skill`.
func runGetSkill(ctx context.Context, f *getFlags, stdout, stderr io.Writer) error {
	if err := f.validate(); err != nil {
		return err
	}
	switch f.Format {
	case "md", "text", "json", "":
	default:
		return usageErrorf("--format must be md, text or json, not %q", f.Format)
	}
	if f.Page < 0 || (f.pageSet && f.Page == 0) {
		return usageErrorf("--page must be ≥ 1 (pages are numbered from 1), not %d", f.Page)
	}
	return getSkill(ctx, f, f.skill, f.skillRel, stdout, stderr)
}

// runGet implements `get`.
func runGet(ctx context.Context, f *getFlags, input string, stdout, stderr io.Writer) (retErr error) {
	name := "get"
	f.Embedded.Out = f.out
	f.Embedded.Server = f.server
	if err := f.validate(); err != nil {
		return err
	}
	pos := []string{input}
	switch f.Format {
	case "md", "text", "json", "":
	default:
		return usageErrorf("--format must be md, text or json, not %q", f.Format)
	}
	// Pages are 1-based in every message; 0 is not "all pages" but a
	// mistake, like -1.
	if f.Page < 0 || (f.pageSet && f.Page == 0) {
		return usageErrorf("--page must be ≥ 1 (pages are numbered from 1), not %d", f.Page)
	}

	if handled, err := getHook(ctx, &f.globalFlags, pos[0], stdout, stderr); handled {
		return err // a missing file, or a non-dpe resource of the user's own servers
	}

	log, closeLog, err := f.logger()
	if err != nil {
		return err
	}
	defer closeLog()
	// Every error also goes to --log, with the details the screen omits.
	defer func() { logError(log, name, retErr) }()

	// With --page, a local document is validated whole but only that page
	// is kept: peak memory stays a fraction of the file.
	ctx = dpe.WithPageOnly(ctx, f.Page)
	op, opener, cleanup, err := openInput(ctx, &f.globalFlags, f.Computer, pos[0], convertFetchedText, log, stderr)
	if err != nil {
		return err
	}
	defer cleanup()

	opener.KeepPageJSON = f.Format == "json"
	if f.Format == "md" || f.Format == "" {
		// On a terminal, Markdown is rendered; piped, it stays plain.
		return renderMarkdown(stdout, f.Theme, f.noColor(), func(w io.Writer) error {
			return printGetWith(ctx, opener, op, f.Page, f.Format, f.export, w)
		})
	}
	return printGetWith(ctx, opener, op, f.Page, f.Format, f.export, stdout)
}

// openInput opens a dpe:// URI through a server, or a file or URL directly.
// When no --computer was given, it says on stderr which computer answered.
func openInput(ctx context.Context, g *globalFlags, computer, input string, text fetchedText, log *slog.Logger, stderr io.Writer) (*dpe.Opened, *dpe.Opener, func(), error) {
	if strings.HasPrefix(strings.ToLower(input), "dpe:") {
		// Normalised once (RFC 3986): a URI copied from a listing is
		// already in that form and is sent byte for byte.
		wire, err := dpe.NormalizeURI(input)
		if err != nil {
			return nil, nil, nil, usageErrorf("%v", err)
		}
		t, err := resolveTarget(ctx, g, log)
		if err != nil {
			return nil, nil, nil, err
		}
		c, err := dial(ctx, g, t, log)
		if err != nil {
			t.Close()
			return nil, nil, nil, err
		}
		cleanup := func() { c.Close(); t.Close() }
		resolver := c.Resolver(computer)
		opener := &dpe.Opener{Resolver: resolver, Fetcher: fetcher(g, t.URL), Limits: dpe.DefaultLimits()}
		op, err := opener.Open(ctx, wire)
		if err != nil {
			cleanup()
			return nil, nil, nil, err // "open dpe://…: …" already
		}
		// What the answer got wrong, and what was done about it, is said
		// on stderr; the document is still printed.
		for _, pr := range op.Access.Problems {
			fmt.Fprintf(stderr, "dpe-tui: conformance: computer %s: %s\n", sanitize.Line(op.Access.Computer), sanitize.Line(pr))
		}
		for _, n := range op.Notes {
			fmt.Fprintf(stderr, "dpe-tui: %s: %s\n", sanitize.Line(wire), sanitize.Line(n))
		}
		if computer == "" && op.Access.Computer != "" {
			fmt.Fprintf(stderr, "dpe-tui: %s resolved by computer %s\n", sanitize.Line(wire), sanitize.Line(op.Access.Computer))
		}
		return op, opener, cleanup, nil
	}
	if op, opener, ok, err := openLocal(ctx, input, stderr); ok {
		// A local file that is not DPE JSON: converted in-process.
		return op, opener, func() {}, err
	}
	access := input
	if !strings.Contains(input, "://") {
		abs, err := filepath.Abs(input)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", input, err)
		}
		access = "file://" + filepath.ToSlash(abs)
	}
	// A file or URL the user typed is trusted as far as file:// goes.
	fch := fetcher(g, "")
	fch.AllowFile = true
	opener := &dpe.Opener{Fetcher: fch, Limits: dpe.DefaultLimits()}
	op, err := opener.OpenAccess(ctx, access)
	if err != nil {
		return nil, nil, nil, err // names the file or URL already
	}
	if cop, copener, ok, err := openFetched(ctx, op, text, stderr); ok {
		// A PDF, DOCX, web page… at a URL: converted as the same file here
		// would be.
		return cop, copener, func() {}, err
	}
	return op, opener, func() {}, nil
}

func printGet(ctx context.Context, opener *dpe.Opener, op *dpe.Opened, page int, format string, w io.Writer) error {
	return printGetWith(ctx, opener, op, page, format, render.ExportOptions{}, w)
}

// printGetWith is printGet with the export's options (get --furniture).
func printGetWith(ctx context.Context, opener *dpe.Opener, op *dpe.Opened, page int, format string, o render.ExportOptions, w io.Writer) error {
	if op.Kind != dpe.KindDocument {
		switch format {
		case "json":
			return fmt.Errorf("content at %s is %s, not a DPE document", sanitize.Line(sanitize.URL(op.Access.URI)), kindName(op.Kind))
		default:
			if op.Kind == dpe.KindBinary {
				return fmt.Errorf("content at %s is binary (%s, %d bytes); save it with the TUI", sanitize.Line(sanitize.URL(op.Access.URI)), sanitize.Line(binaryKind(op.MimeType, op.Body)), len(op.Body))
			}
			_, err := io.WriteString(w, sanitize.Text(string(op.Body)))
			return err
		}
	}
	d := op.Doc
	if page == 0 {
		for i := range d.Pages {
			if err := loadPage(ctx, opener, op, i); err != nil {
				return err
			}
		}
		switch format {
		case "json":
			// The whole document inline, manifest pages assembled; no
			// access URI (signed, short-lived) is printed.
			b, err := op.AssembledJSON()
			if err != nil {
				return err
			}
			_, err = w.Write(append(escapeJSON(b), '\n'))
			return err
		case "text":
			_, err := io.WriteString(w, render.Export(d, false, o))
			return err
		default:
			_, err := io.WriteString(w, render.Export(d, true, o))
			return err
		}
	}
	if page > len(d.Pages) {
		return fmt.Errorf("--page %d: the document has %d page(s)", page, len(d.Pages))
	}
	if err := loadPage(ctx, opener, op, page-1); err != nil {
		return err
	}
	p := d.Pages[page-1]
	switch format {
	case "json":
		b, err := op.PageJSON(page - 1)
		if err != nil {
			return err
		}
		_, err = w.Write(append(escapeJSON(b), '\n'))
		return err
	case "text":
		_, err := io.WriteString(w, render.ExportPage(p, false, o))
		return err
	default:
		_, err := io.WriteString(w, render.ExportPage(p, true, o))
		return err
	}
}

func loadPage(ctx context.Context, opener *dpe.Opener, op *dpe.Opened, i int) error {
	p := op.Doc.Pages[i]
	if p.Decoded {
		return nil
	}
	if len(p.Raw) > 0 && !isManifestOnly(p) {
		return op.Doc.EnsurePage(i, opener.Limits) // its errors name the page

	}
	return opener.LoadPageInto(ctx, op, i) // its errors name the page

}

// isManifestOnly: a page with a uri and no inline elements must be fetched.
func isManifestOnly(p *dpe.Page) bool {
	return p.URI != "" && !strings.Contains(string(p.Raw), `"elements"`)
}

// escapeJSON makes raw document JSON safe to print on a terminal without
// changing what it means: DEL, C1 controls, bidi controls and line/paragraph
// separators become \uXXXX escapes and invalid UTF-8 becomes \ufffd. Only
// tab, newline and carriage return (JSON whitespace) stay raw.
func escapeJSON(b []byte) []byte {
	clean := true
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if (r == utf8.RuneError && n <= 1) || unsafeRune(r) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return append([]byte(nil), b...)
	}
	out := make([]byte, 0, len(b)+64)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			out = append(out, `\ufffd`...)
		case unsafeRune(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// unsafeRune: what escapeJSON escapes.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

func kindName(k dpe.ContentKind) string {
	switch k {
	case dpe.KindDocument:
		return "a DPE document"
	case dpe.KindMarkdown:
		return "Markdown"
	case dpe.KindText:
		return "plain text"
	default:
		return "binary data"
	}
}

func absPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(abs), nil
}

// binaryKind names a binary content for an error: its MIME type, else
// what its first bytes say (a local file has no MIME type), else only
// "binary data".
func binaryKind(mimeType string, body []byte) string {
	if mimeType != "" {
		return mimeType
	}
	if bytes.HasPrefix(body, []byte("\x7fELF")) {
		return "ELF executable"
	}
	if mt := http.DetectContentType(body); mt != "application/octet-stream" {
		return mt
	}
	return "binary data"
}
