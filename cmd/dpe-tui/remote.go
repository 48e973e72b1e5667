package main

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/dpev1"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/internal/plural"
	"github.com/dpe-tui/dpe-tui/remote"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// remoteCmd groups the DPE v1 commands: our own remote and a browser of
// any remote (github.com/A2C-SMCP/dpe-protocol, spec/bindings/http.md).
func (a *app) remoteCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "remote",
		Short: "Serve a DPE v1 remote, or list and inspect one",
		Long: "remote serves a DPE v1 remote (an HTTP delivery endpoint on an embedded database) or reads one.\n" +
			"A profile's remote_token_env / remote_token_cmd gives the bearer token, sent only to its own `remote` URL.",
		Args: noArgs,
	}
	cmd.AddCommand(a.remoteServeCmd(), a.remoteLsCmd(), a.remoteHeadCmd(), a.remoteSkeletonCmd(), a.remoteMvCmd(), a.remoteCatCmd())
	return cmd
}

type remoteServeFlags struct {
	store, addr, tokenEnv     string
	readObjects, insecureBind bool
}

func (a *app) remoteServeCmd() *cobra.Command {
	f := &remoteServeFlags{}
	cmd := &cobra.Command{
		Use:   "serve --store DIR",
		Short: "Run a DPE v1 remote on a store directory",
		Long: "serve runs a complete DPE v1 remote over HTTP until interrupted: documents in a bbolt database,\n" +
			"objects and blobs content-addressed under DIR. It listens on loopback unless --addr says otherwise.",
		Example: `  dpe-tui remote serve --store ~/dpe-store
  DPE_REMOTE_TOKEN=secret dpe-tui remote serve --store /srv/dpe --addr 0.0.0.0:7900 --token-env DPE_REMOTE_TOKEN`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runRemoteServe(a.ctx, f, a.stdout, a.stderr) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.store, "store", "", "the store directory (created if missing)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:7900", "listen address (host:port; port 0 picks a free one)")
	fs.StringVar(&f.tokenEnv, "token-env", "", "require the bearer token held by this environment variable")
	fs.BoolVar(&f.readObjects, "read-objects", false, "offer the read extension GET objects/{hash} (objects of readable documents only)")
	fs.BoolVar(&f.insecureBind, "insecure-bind", false, "on an address beyond loopback: serve without a token (anyone who reaches it reads and writes)")
	onlyGlobals(cmd, "config", "log", "no-color")
	return cmd
}

// onlyGlobals makes cmd's help list, of the global flags, only those it
// reads: the others are the A2C-SMCP agent's (--url, --office, …) and say
// nothing about cmd. They stay accepted.
func onlyGlobals(cmd *cobra.Command, keep ...string) {
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		c.InheritedFlags().VisitAll(func(f *pflag.Flag) {
			if !slices.Contains(keep, f.Name) {
				f.Hidden = true
			}
		})
		c.Root().HelpFunc()(c, args)
	})
}

func runRemoteServe(ctx context.Context, f *remoteServeFlags, stdout, stderr io.Writer) error {
	if f.store == "" {
		return usageErrorf("remote serve needs --store DIR")
	}
	if err := checkListenAddr(f.addr); err != nil {
		return err
	}
	// As mcp --http: beyond loopback, a token or an explicit
	// --insecure-bind; and a warning either way (http carries the token
	// in clear).
	beyond := !loopbackAddr(f.addr)
	if beyond && f.tokenEnv == "" && !f.insecureBind {
		return usageErrorf("remote serve --addr %s listens beyond loopback: give a token (--token-env VAR), or --insecure-bind", sanitize.Line(f.addr))
	}
	opt := remote.Options{ReadObjects: f.readObjects}
	if f.tokenEnv != "" {
		want := os.Getenv(f.tokenEnv)
		if want == "" {
			return usageErrorf("--token-env %s: the variable is not set or empty", sanitize.Line(f.tokenEnv))
		}
		opt.Authenticate = func(r *http.Request) (string, bool) {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			return "token", ok && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
		}
	}
	srv, err := remote.Open(f.store, opt)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("remote serve: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	fmt.Fprintf(stdout, "dpe-tui remote serve: DPE v1 remote at http://%s (store %s)\n", ln.Addr(), sanitize.Line(f.store))
	switch {
	case beyond && f.tokenEnv == "":
		fmt.Fprintf(stderr, "dpe-tui: WARN remote serve listens beyond loopback without a token (--insecure-bind): anyone who reaches %s reads and writes the store\n", ln.Addr())
	case beyond:
		fmt.Fprintf(stderr, "dpe-tui: WARN remote serve listens beyond loopback; the bearer token travels in clear over http: put TLS in front\n")
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("remote serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		fmt.Fprintf(stderr, "dpe-tui: remote serve: shutdown: %v\n", err)
	}
	return nil
}

// remoteClient is a client of url (empty: the profile's remote) with the
// profile's token when url is the profile's remote; it asks capabilities
// first, so a remote that does not speak dpe1 fails here (core §3.1: no
// silent downgrade).
func (a *app) remoteClient(ctx context.Context, url string) (*dpev1.Client, *wire.Capabilities, error) {
	if err := a.g.configReady(); err != nil {
		return nil, nil, err
	}
	opt := dpev1.Options{Timeout: time.Duration(a.g.Timeout)}
	profRemote := ""
	if st := a.prof; st != nil && st.name != "" {
		p, err := st.file.Lookup(st.name)
		if err == nil && p.Remote != "" {
			profRemote = p.Remote
			if url == "" {
				url = p.Remote
			}
			if strings.TrimSuffix(p.Remote, "/") == strings.TrimSuffix(url, "/") {
				tok, err := p.ResolveRemoteToken(ctx)
				if err != nil {
					return nil, nil, err
				}
				opt.Token = func(context.Context) (string, error) { return tok, nil }
			}
		}
	}
	if url == "" {
		return nil, nil, usageErrorf("no remote: give its URL, or a --profile whose remote is set")
	}
	if a.tokenEnv != "" {
		// Named on the command line, the token itself never is (it would
		// show in ps and the shell's history); it goes to url only.
		tok := os.Getenv(a.tokenEnv)
		if tok == "" {
			return nil, nil, usageErrorf("--token-env %s: the variable is empty or unset", sanitize.Line(a.tokenEnv))
		}
		opt.Token = func(context.Context) (string, error) { return tok, nil }
	}
	c, err := dpev1.New(url, opt)
	if err != nil {
		return nil, nil, usageErrorf("%v", err)
	}
	caps, err := c.Capabilities(ctx)
	if err != nil {
		prof := ""
		if a.prof != nil {
			prof = a.prof.name
		}
		return nil, nil, explainRemote(err, url, prof, profRemote, a.tokenEnv)
	}
	return c, caps, nil
}

// tokenEnvFlag gives cmd (push, or a remote client command) --token-env.
func (a *app) tokenEnvFlag(cmd *cobra.Command) {
	cmd.Flags().StringVar(&a.tokenEnv, "token-env", "", "send the bearer token held in this environment variable to the remote (instead of a profile's)")
}

// explainRemote adds the next step to an answer a user cannot act on
// alone: a 401 means the remote wants a bearer token, which dpe-tui sends
// from --token-env, or from a profile whose remote is this URL. The
// remote's own detail already says a token is wanted, so only the step is
// added.
func explainRemote(err error, url, prof, profRemote, tokenEnv string) error {
	var he *dpev1.HTTPError
	if !errors.As(err, &he) || he.Status != http.StatusUnauthorized {
		return err
	}
	same := strings.TrimSuffix(profRemote, "/") == strings.TrimSuffix(url, "/")
	var how string
	switch {
	case tokenEnv != "":
		how = "the token in " + sanitize.Line(tokenEnv) + " was refused"
	case prof != "" && profRemote != "" && same:
		how = "the profile's token was refused: check its remote_token_env / remote_token_cmd"
	case prof != "" && profRemote != "":
		how = "profile " + sanitize.Line(prof) + " sends its token only to its remote " + sanitize.Line(sanitize.URL(profRemote)) +
			" (a URL compared as written): give that URL, or --token-env VAR"
	default:
		how = "give --token-env VAR, or a --profile with remote = \"" + sanitize.Line(sanitize.URL(url)) + "\" and remote_token_env (or remote_token_cmd)"
	}
	return fmt.Errorf("%w; %s", err, how)
}

// remoteArgs splits a command's arguments into the remote's URL and the
// rest: the first argument is the URL when it is one (http:// or
// https://); otherwise the profile's remote is used.
func remoteArgs(args []string) (string, []string) {
	if len(args) > 0 && (strings.HasPrefix(args[0], "http://") || strings.HasPrefix(args[0], "https://")) {
		return args[0], args[1:]
	}
	return "", args
}

func (a *app) remoteLsCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ls [URL] [PREFIX]",
		Short: "List a remote's documents (doc_hash and file_uri) under a prefix",
		Long: "ls lists the documents of a DPE v1 remote under the folder PREFIX (a / is added when missing, as push --prefix adds it;\n" +
			"non-ASCII is percent-encoded as push encodes names; the match is by code points, not normalized).\n" +
			"Without a URL (http:// or https://) it lists the remote of --profile.",
		Example: `  dpe-tui remote ls http://127.0.0.1:7900
  dpe-tui remote ls http://127.0.0.1:7900 file:///home/me/papers/ --json`,
		Args: func(_ *cobra.Command, args []string) error {
			if _, rest := remoteArgs(args); len(rest) > 1 {
				return usageErrorf("remote ls takes a remote URL and at most one prefix")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			url, rest := remoteArgs(args)
			prefix := ""
			if len(rest) == 1 {
				prefix = folderURI(rest[0])
			}
			if _, v := wire.NormalizeURI(prefix + "x"); prefix != "" && v != nil {
				return &exitError{code: exitProtocol, msg: "remote ls: " + v.Error()} // as head says it
			}
			return a.runRemoteLs(url, prefix, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print [{"file_uri", "doc_hash"}]`)
	a.tokenEnvFlag(cmd)
	return cmd
}

// folderURI is a prefix as push and ls take it: a folder, so a / is
// added when missing (file:///proj must not match file:///project/…), and
// an IRI is encoded as every file_uri argument is.
func folderURI(s string) string {
	s = identity.EncodeIRI(s)
	if s != "" && !strings.HasSuffix(s, "/") {
		s += "/"
	}
	return s
}

func (a *app) runRemoteLs(url, prefix string, asJSON bool) error {
	c, _, err := a.remoteClient(a.ctx, url)
	if err != nil {
		return err
	}
	n := 0
	if asJSON {
		io.WriteString(a.stdout, "[")
	}
	for e, err := range c.List(a.ctx, prefix, dpev1.ListOptions{}) {
		if err != nil {
			if asJSON {
				io.WriteString(a.stdout, "]\n")
			}
			return err
		}
		if asJSON {
			b, _ := json.Marshal(e)
			if n > 0 {
				io.WriteString(a.stdout, ",")
			}
			fmt.Fprintf(a.stdout, "\n  %s", b)
		} else {
			fmt.Fprintf(a.stdout, "%s  %s\n", e.DocHash, sanitize.Line(e.FileURI))
		}
		n++
	}
	if asJSON {
		if n > 0 {
			io.WriteString(a.stdout, "\n")
		}
		io.WriteString(a.stdout, "]\n")
	} else if n == 0 {
		fmt.Fprintf(a.stderr, "dpe-tui: no documents under %q\n", sanitize.Line(prefix))
	}
	return nil
}

func (a *app) remoteHeadCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		// No brackets around URL: the help puts anything in [] after the
		// other arguments, which would show the order backwards.
		Use:   "head URL URI…",
		Short: "Print each document's doc_hash (- when the remote has none)",
		Long: "head asks a DPE v1 remote for the doc_hash of each file_uri (batch_head for several), in the order given.\n" +
			"URL can be left out when the --profile names a remote.",
		Example: `  dpe-tui remote head http://127.0.0.1:7900 file:///home/me/a.md file:///home/me/b.md`,
		Args: func(_ *cobra.Command, args []string) error {
			if _, rest := remoteArgs(args); len(rest) < 1 {
				return usageErrorf("remote head needs at least one file_uri (after the remote URL, or with a --profile's remote)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			url, rest := remoteArgs(args)
			for i := range rest {
				rest[i] = identity.EncodeIRI(rest[i])
			}
			return a.runRemoteHead(url, rest, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print [{"file_uri", "doc_hash"}] in the order given (doc_hash null when the remote has none)`)
	a.tokenEnvFlag(cmd)
	return cmd
}

// headJSON is one answer of remote head --json.
type headJSON struct {
	FileURI string  `json:"file_uri"`
	DocHash *string `json:"doc_hash"`
}

func (a *app) runRemoteHead(url string, uris []string, asJSON bool) error {
	c, caps, err := a.remoteClient(a.ctx, url)
	if err != nil {
		return err
	}
	answers := []headJSON{}
	print := func(h *wire.Head, uri string) {
		if asJSON {
			var hash *string
			if h != nil {
				hash = &h.DocHash
			}
			answers = append(answers, headJSON{uri, hash})
			return
		}
		hash := "-"
		if h != nil {
			hash = h.DocHash
		}
		fmt.Fprintf(a.stdout, "%s  %s\n", hash, sanitize.Line(uri))
	}
	defer func() {
		if asJSON {
			b, _ := json.MarshalIndent(answers, "", "  ")
			a.stdout.Write(append(b, '\n'))
		}
	}()
	// A file_uri the remote would refuse (core §1.1) is refused here, on
	// a line of its own: one typo must not cost the answers for the rest,
	// which batch_head refuses whole.
	var good []string
	var bad []error
	for _, u := range uris {
		if _, v := wire.NormalizeURI(u); v != nil {
			bad = append(bad, fmt.Errorf("remote head: %w", v))
			continue
		}
		good = append(good, u)
	}
	if len(good) == 0 && len(bad) == 1 {
		// What the remote would have said: its code, exit 3.
		return &exitError{code: exitProtocol, msg: bad[0].Error()}
	}
	for _, e := range bad {
		fmt.Fprintf(a.stderr, "dpe-tui: %s\n", sanitize.Line(e.Error()))
	}
	if len(good) == 1 {
		h, err := c.Head(a.ctx, good[0])
		if err != nil {
			return err
		}
		print(h, good[0])
	}
	step := max(caps.Limits.BatchHeadMax, 1)
	for i := 0; len(good) > 1 && i < len(good); i += step {
		part := good[i:min(i+step, len(good))]
		heads, err := c.BatchHead(a.ctx, part)
		if err != nil {
			return err
		}
		for j, h := range heads {
			print(h, part[j])
		}
	}
	if len(bad) > 0 {
		return &exitError{code: exitProtocol, msg: fmt.Sprintf("remote head: %d of %d file_uris refused (%s), the rest answered", len(bad), len(uris), wire.CodeValidation)}
	}
	return nil
}

func (a *app) remoteSkeletonCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "skeleton URL URI", // no brackets: see head
		Short: "Print a document's skeleton: page titles, page metadata, element hashes",
		Long: "skeleton reads a document's hash tree from a DPE v1 remote and verifies it: every page hash and\n" +
			"the doc_hash are recomputed (dpe1) before anything is printed. URL can be left out when the\n" +
			"--profile names a remote.",
		Example: `  dpe-tui remote skeleton http://127.0.0.1:7900 file:///home/me/a.md --json`,
		Args: func(_ *cobra.Command, args []string) error {
			if _, rest := remoteArgs(args); len(rest) != 1 {
				return usageErrorf("remote skeleton needs one file_uri (after the remote URL, or with a --profile's remote)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			url, rest := remoteArgs(args)
			return a.runRemoteSkeleton(url, identity.EncodeIRI(rest[0]), asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"file_uri", "doc_hash", "document", "pages"} as the binding has it`)
	a.tokenEnvFlag(cmd)
	return cmd
}

func (a *app) runRemoteSkeleton(url, uri string, asJSON bool) error {
	c, _, err := a.remoteClient(a.ctx, url)
	if err != nil {
		return err
	}
	res, err := c.GetSkeleton(a.ctx, uri, "")
	if err != nil {
		return err
	}
	sk := res.Skeleton
	if sk == nil {
		return errors.New("remote skeleton: no skeleton in the answer")
	}
	if asJSON {
		b, err := json.MarshalIndent(map[string]any{"file_uri": sk.FileURI, "doc_hash": sk.DocHash, "document": sk.Document, "pages": sk.Pages}, "", "  ")
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(append(b, '\n'))
		return err
	}
	w := a.stdout
	fmt.Fprintf(w, "file_uri  %s\ndoc_hash  %s\nfile_type %s\n", sanitize.Line(sk.FileURI), sk.DocHash, sanitize.Line(sk.Document.FileType))
	if t := sk.Document.Title; t != nil {
		fmt.Fprintf(w, "title     %s\n", sanitize.Line(*t))
	}
	if m := compactMeta(sk.Document.DocMetadata); m != "" {
		fmt.Fprintf(w, "metadata  %s\n", m)
	}
	for i, p := range sk.Pages {
		title := ""
		if p.Title != nil {
			title = "  " + sanitize.Line(*p.Title)
		}
		fmt.Fprintf(w, "page %d  %s  %s%s\n", i+1, sk.Document.Pages[i], plural.Count(len(p.Elements), "element", "elements"), title)
		if m := compactMeta(p.PageMetadata); m != "" {
			fmt.Fprintf(w, "  metadata %s\n", m)
		}
		for _, e := range p.Elements {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
	return nil
}

// compactMeta is a metadata object on one sanitized line ("" for {}),
// cut at 200 columns: a peer's metadata may be anything.
func compactMeta(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "{}" || string(raw) == "null" {
		return ""
	}
	s := sanitize.Line(string(raw))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func (a *app) remoteMvCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "mv URL FROM TO",
		Short: "Rename a document on the remote (move, with CAS on the hash it has now)",
		Long: "mv renames FROM to TO: it reads FROM's doc_hash and moves with it as base_hash, so a document\n" +
			"changed in between is refused (DPE_PRECONDITION_FAILED); TO must not exist (DPE_ALREADY_EXISTS).",
		Example: `  dpe-tui remote mv http://127.0.0.1:7900 file:///d/old.md file:///d/new.md`,
		Args:    exactArgs(3, "remote mv needs a remote URL, a source and a target file_uri"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.remoteClient(a.ctx, args[0])
			if err != nil {
				return err
			}
			from, to := identity.EncodeIRI(args[1]), identity.EncodeIRI(args[2])
			h, err := c.Head(a.ctx, from)
			if err != nil {
				return err
			}
			if h == nil {
				// The binding's own code for it, so the exit is a protocol
				// error's (3) as when move itself refuses.
				return &wire.Problem{Code: wire.CodeNotFound, Detail: "remote mv: no document " + from}
			}
			res, err := c.Move(a.ctx, from, to, h.DocHash)
			if err != nil {
				return err
			}
			if asJSON {
				b, _ := json.MarshalIndent(map[string]string{"file_uri": to, "doc_hash": res.DocHash}, "", "  ")
				_, err = a.stdout.Write(append(b, '\n'))
				return err
			}
			fmt.Fprintf(a.stdout, "%s  %s\n", res.DocHash, sanitize.Line(to))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, `print {"file_uri", "doc_hash"} of the document at its new place`)
	a.tokenEnvFlag(cmd)
	return cmd
}

func (a *app) remoteCatCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cat URL HASH",
		Short: "Print a page or element object (or a blob) by hash, through the read extension",
		Long: "cat reads one object with the remote's read extension (GET objects/{hash}, offered only by remotes\n" +
			"that list read_objects, such as `remote serve --read-objects`) and verifies it against its hash.",
		Example: `  dpe-tui remote cat http://127.0.0.1:7900 dpe1:3f…`,
		Args:    exactArgs(2, "remote cat needs a remote URL and one hash"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, caps, err := a.remoteClient(a.ctx, args[0])
			if err != nil {
				return err
			}
			if !caps.Has(wire.FeatureReadObjects) {
				return fmt.Errorf("remote cat: %s does not offer the read extension (%s)", sanitize.Line(args[0]), wire.FeatureReadObjects)
			}
			b, err := c.ReadObject(a.ctx, args[1])
			var pr *wire.Problem
			if errors.As(err, &pr) && pr.Code == wire.CodeNotFound && strings.HasPrefix(args[1], "dpe1:") {
				// A doc_hash looks like a page's or an element's, but names
				// no content object: documents are read as skeletons.
				err = fmt.Errorf("%w; cat reads page and element objects and blobs, a doc_hash is a document's (remote skeleton URL URI prints it)", err)
			}
			if err != nil {
				return err
			}
			if wire.ValidBlobRef(args[1]) && isTerminal(a.stdout) {
				return fmt.Errorf("remote cat: %s is binary; redirect it to a file", args[1])
			}
			_, err = a.stdout.Write(b)
			if err == nil && !wire.ValidBlobRef(args[1]) {
				_, err = io.WriteString(a.stdout, "\n")
			}
			return err
		},
	}
	a.tokenEnvFlag(cmd)
	return cmd
}
