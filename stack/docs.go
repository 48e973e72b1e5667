package stack

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dpe-tui/dpe-tui/computer"
	finderpkg "github.com/dpe-tui/dpe-tui/finder"
	"github.com/dpe-tui/dpe-tui/library"
)

// DocsOptions configure the library MCP server AddDocs gives a computer.
type DocsOptions struct {
	// Dir is the folder to serve; empty: the embedded sample corpus.
	Dir string
	// FinderDir keeps the Finder index there (library.FinderOptions.IndexDir).
	FinderDir string
	// NoFinder serves the library without Finder (no find, no list_documents).
	NoFinder bool
	// Start delays indexing until it is closed (nil: at once), so the index
	// does not compete with joining; indexing runs at low priority.
	Start <-chan struct{}
	// ConvertTimeout is the deadline of converting one document
	// (library.Options.ConvertTimeout); 0: convert.DefaultTimeout.
	ConvertTimeout time.Duration
	// FindTimeout is the deadline of one Finder query
	// (finder.QueryLimits.Timeout); 0: its default.
	FindTimeout time.Duration
	// FindMaxExpansion caps the terms one query pattern expands to
	// (finder.QueryLimits.MaxExpansion); 0: its default.
	FindMaxExpansion int
	// Notice is told the library converter's one-line notices
	// (library.Options.Notice); nil: none.
	Notice func(string)
	Logger *slog.Logger
	// Middleware wraps the MCP server's incoming requests (tests).
	Middleware []mcp.Middleware
}

// AddDocs serves a folder (or the corpus) on c as MCP server "library"
// (host HostLibrary): dpe:// listing and reading, the Finder tools and the
// window:// status the desktop shows. It is the one path of `serve --docs`
// (computer alpha) and `computer --docs`. The caller closes the returned
// library after c.
func AddDocs(ctx context.Context, c *computer.Computer, opt DocsOptions) (*library.Library, error) {
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var finder *library.FinderOptions
	if !opt.NoFinder {
		finder = &library.FinderOptions{IndexDir: opt.FinderDir, Start: opt.Start, Background: true, Limits: finderpkg.QueryLimits{Timeout: opt.FindTimeout, MaxExpansion: opt.FindMaxExpansion}}
	}
	own := &Stack{}
	lib, err := own.openLibrary(ctx, c, ServerLibrary, library.Options{Dir: opt.Dir, Host: HostLibrary, PageSize: PageSize,
		Name: ServerLibrary, Logger: log.With("component", "library"), Finder: finder, ConvertTimeout: opt.ConvertTimeout, Notice: opt.Notice}, opt.Middleware...)
	if err != nil {
		_ = own.Close() // the library, if it opened
		return nil, err
	}
	return lib, nil
}
