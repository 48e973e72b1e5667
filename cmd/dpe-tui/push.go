package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/dpev1"
	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/internal/localfile"
	"github.com/dpe-tui/dpe-tui/internal/plural"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

type pushFlags struct {
	remote, prefix string
	dryRun, prune  bool
	jobs           int
	verbose        bool
}

// maxPushFiles bounds one push: a mistaken root (/) must not be walked
// and converted without end.
const maxPushFiles = 100000

func (a *app) pushCmd() *cobra.Command {
	f := &pushFlags{}
	cmd := &cobra.Command{
		Use:   "push FILE|DIR --remote URL",
		Short: "Deliver files to a DPE v1 remote: convert, hash, send only what changed",
		Long: "push converts each file (as convert does), computes its dpe1 identity, asks the remote which\n" +
			"documents differ (batch_head), and for those sends only the objects the remote lacks, committing\n" +
			"each with CAS: If-Match on the hash it read, or If-None-Match: * for a new one. A document changed\n" +
			"on the remote meanwhile is reported (DPE_PRECONDITION_FAILED), never overwritten.",
		Example: `  dpe-tui push ~/papers --remote http://127.0.0.1:7900
  dpe-tui push ~/papers --remote http://127.0.0.1:7900 --prefix file:///papers/ --prune --dry-run`,
		Args: exactArgs(1, "push needs exactly one file or folder"),
		RunE: func(cmd *cobra.Command, args []string) error { return a.runPush(f, args[0]) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.remote, "remote", "", "the DPE v1 remote's URL (default: the remote of --profile)")
	fs.StringVar(&f.prefix, "prefix", "", "file_uri folder of the documents, ending in / (added when missing; non-ASCII percent-encoded; default: the folder's file:// URI)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print what would change, write nothing")
	fs.BoolVar(&f.prune, "prune", false, "delete remote documents under the prefix whose files are gone")
	fs.IntVar(&f.jobs, "jobs", 4, "documents converted and sent at once")
	fs.BoolVar(&f.verbose, "verbose", false, "a line for every document, unchanged ones too (the summary counts them)")
	a.tokenEnvFlag(cmd)
	return cmd
}

// localDoc is one file as the remote will hold it.
type localDoc struct {
	path, uri string
	docRaw    json.RawMessage
	hash      string
	pages     map[string]json.RawMessage // page_hash → page object
	objects   map[string]json.RawMessage // content_hash → element object
	blobs     map[string][]byte          // sha256 ref → bytes
	blobOf    map[string]string          // content_hash → its blob ref, for Image elements
	elems     []string                   // content hashes in reading order (delta's multiset)
	err       error
}

// pushResult is what happened to one document.
type pushResult struct {
	uri, status string // created, updated, unchanged, deleted, would …, failed, not sent
	delta       wire.Delta
	err         error
	local       bool // err is the file's own (it never reached the remote)
}

func (a *app) runPush(f *pushFlags, root string) error {
	if f.jobs < 1 || f.jobs > 64 {
		return usageErrorf("--jobs must be from 1 to 64, not %d", f.jobs)
	}
	files, skipped, base, err := pushFiles(root)
	if err != nil {
		return err
	}
	// The prefix of a file is its folder's: pruning it would delete every
	// other document of that folder, which the user did not name.
	if st, err := os.Stat(root); f.prune && err == nil && !st.IsDir() {
		return usageErrorf("--prune needs a folder: with a file (%s) it would delete the other documents of its folder", sanitize.Line(root))
	}
	prefix := identity.EncodeIRI(f.prefix)
	if prefix == "" {
		prefix = fileURIOf(base) + "/"
	}
	// A prefix is a folder: file:///proj must not glue onto names
	// (file:///proja.md) nor let --prune reach file:///proj-old/.
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	if _, v := wire.NormalizeURI(prefix + "x"); v != nil {
		return usageErrorf("--prefix %q does not make a file_uri: %v", sanitize.Line(prefix), v)
	}
	out := newPushOutput(a.stdout, a.stderr, a.g.noColor())
	out.all = f.verbose
	if len(files) == 0 && !f.prune {
		// Nothing to convert is nothing to ask the remote: said in a line,
		// exit 0, as an unchanged folder is (a remote that is down, or
		// none typed, is no error of a push that sends nothing).
		for _, s := range skipped {
			out.line(a.stderr, fmt.Sprintf("dpe-tui: push: skipped %s: %s", sanitize.Line(s.path), s.why))
		}
		fmt.Fprintf(a.stdout, "push: nothing to send: %s has no file dpe-tui converts%s\n", sanitize.Line(root), skippedClause(len(skipped)))
		return nil
	}
	c, caps, err := a.remoteClient(a.ctx, f.remote)
	if err != nil {
		return err
	}
	for _, s := range skipped {
		out.line(a.stderr, fmt.Sprintf("dpe-tui: push: skipped %s: %s", sanitize.Line(s.path), s.why))
	}
	conv := convert.New(convert.Options{Notice: func(s string) { out.line(a.stderr, "dpe-tui: "+s) }})
	defer conv.Close()
	// Convert and hash, f.jobs at once.
	docs := make([]*localDoc, len(files))
	out.start("converting", len(files))
	parallel(f.jobs, len(files), func(i int) {
		rel, _ := filepath.Rel(base, files[i])
		docs[i] = buildLocal(a.ctx, conv, files[i], prefix+uriPath(rel))
		out.step()
	})
	// Ask which documents differ.
	heads := make([]*wire.Head, len(docs))
	step := max(caps.Limits.BatchHeadMax, 1)
	for i := 0; i < len(docs); i += step {
		part := docs[i:min(i+step, len(docs))]
		uris := make([]string, len(part))
		for j, d := range part {
			uris[j] = d.uri
		}
		hs, err := c.BatchHead(a.ctx, uris)
		if err != nil {
			out.done()
			return err
		}
		copy(heads[i:], hs)
	}
	// A remote that stops answering ends the push after the documents in
	// flight: the rest are not sent, and the summary says why.
	var gone pushGone
	results := make([]pushResult, len(docs))
	out.start("sending", len(docs))
	parallel(f.jobs, len(docs), func(i int) {
		if err := gone.get(); err != nil {
			results[i] = pushResult{uri: docs[i].uri, status: "not sent"}
		} else {
			results[i] = pushOne(a.ctx, c, caps, docs[i], heads[i], f.dryRun)
			if remoteGone(results[i].err) {
				gone.set(results[i].err)
			}
		}
		out.result(results[i])
	})
	if f.prune && gone.get() == nil {
		for _, r := range prune(a.ctx, c, prefix, docs, f.dryRun) {
			out.result(r)
			results = append(results, r)
		}
	}
	out.done()
	if !f.dryRun {
		rememberPush(a.pushedRemote(f.remote), base, prefix, docs) // for the TUI's browser
	}
	return printPush(a, results, len(skipped), gone.get())
}

// pushGone is the first error that says the remote is gone, shared by
// the workers of one push.
type pushGone struct {
	mu  sync.Mutex
	err error
}

func (g *pushGone) get() error { g.mu.Lock(); defer g.mu.Unlock(); return g.err }
func (g *pushGone) set(err error) {
	g.mu.Lock()
	if g.err == nil {
		g.err = err
	}
	g.mu.Unlock()
}

// remoteGone reports whether err means the remote no longer answers (a
// connection refused or cut, a timeout, DPE_UNAVAILABLE after the
// client's retries), as opposed to one document's refusal.
func remoteGone(err error) bool {
	if err == nil {
		return false
	}
	var ue *url.Error
	return errors.As(err, &ue) || errors.Is(err, wire.CodeUnavailable)
}

// skippedFile is a file a folder push does not send, and why.
type skippedFile struct{ path, why string }

// pushFiles lists the convertible files of root (a file or a folder), in
// lexical order, the files it skips (not convertible, or not a regular
// file: a symlink, a FIFO), and the folder URIs are relative to.
func pushFiles(root string) (files []string, skipped []skippedFile, base string, err error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, nil, "", fmt.Errorf("push: %w", err)
	}
	if !st.IsDir() {
		return []string{abs}, nil, filepath.Dir(abs), nil
	}
	conv := convert.New(convert.Options{CacheDir: "-"})
	defer conv.Close()
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != abs && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		if len(files)+len(skipped) >= maxPushFiles {
			return fmt.Errorf("more than %d files", maxPushFiles)
		}
		switch {
		case strings.HasPrefix(d.Name(), "."):
		case !d.Type().IsRegular():
			skipped = append(skipped, skippedFile{p, notRegularWhy(d.Type())})
		case conv.SupportedName(d.Name()):
			files = append(files, p)
		default:
			skipped = append(skipped, skippedFile{p, "not a format dpe-tui converts"})
		}
		return nil
	})
	if err != nil {
		return nil, nil, "", fmt.Errorf("push %s: %w", sanitize.Line(root), err)
	}
	return files, skipped, abs, nil
}

// notRegularWhy names what a non-regular file is, for its skipped line:
// localfile.Kind's words, the one rule for them, and that a walk does not
// follow a symlink.
func notRegularWhy(m fs.FileMode) string {
	if m&fs.ModeSymlink != 0 {
		return localfile.Kind(m) + " (not followed)"
	}
	return localfile.Kind(m)
}

// fileURIOf is the file:// URI of an absolute path, each segment
// percent-encoded as UTF-8 (core §1.1 allows no raw non-ASCII).
func fileURIOf(p string) string { return "file://" + uriPath(filepath.ToSlash(p)) }

func uriPath(p string) string {
	segs := strings.Split(filepath.ToSlash(p), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

func parallel(jobs, n int, fn func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(jobs, max(n, 1)) {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// buildLocal builds one file's DPE v1 objects by localDocument, the rule
// hash uses too, so a pushed document's doc_hash is the one `hash FILE`
// prints.
func buildLocal(ctx context.Context, conv *convert.Converter, path, uri string) *localDoc {
	d := &localDoc{path: path, uri: uri, pages: map[string]json.RawMessage{}, objects: map[string]json.RawMessage{},
		blobs: map[string][]byte{}, blobOf: map[string]string{}}
	lv, err := localDocument(ctx, conv, path, path, false)
	if err != nil {
		var pe *hashProblemsError
		if errors.As(err, &pe) && len(pe.lines) > 0 {
			// One line per document: the first problem says what to fix.
			err = fmt.Errorf("%s; first: %s", pe.summary, strings.TrimSpace(pe.lines[0]))
		}
		d.err = err
		return d
	}
	r := lv.res
	// The canonical objects identity hashed are what the remote receives.
	for i, p := range r.Pages {
		d.pages[string(p.PageHash)] = p.Object
		for j, e := range p.Elements {
			d.objects[string(e.ContentHash)] = e.Object
			d.elems = append(d.elems, string(e.ContentHash))
			if e.Blob == "" {
				continue
			}
			if lv.doc == nil {
				d.err = fmt.Errorf("%s: %s: a DPE v1 document holds its image's blob reference, not its bytes: there is nothing to upload", path, e.Path)
				return d
			}
			b, err := imageBytes(lv.doc, i, j, e.Blob)
			if err != nil {
				d.err = fmt.Errorf("%s: %s: %w", path, e.Path, err)
				return d
			}
			d.blobs[e.Blob] = b
			d.blobOf[string(e.ContentHash)] = e.Blob
		}
	}
	d.docRaw, d.hash = r.Object, string(r.DocHash)
	return d
}

// imageBytes are the decoded image_base64 of element j of page i,
// checked against the reference the mapping computed.
func imageBytes(doc *dpe.Document, i, j int, ref string) ([]byte, error) {
	if i >= len(doc.Pages) || j >= len(doc.Pages[i].Elements) {
		return nil, errors.New("image element not found in the document")
	}
	var s string
	if err := json.Unmarshal(doc.Pages[i].Elements[j].Metadata["image_base64"], &s); err != nil {
		return nil, errors.New("image bytes are not in ele_metadata.image_base64")
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	if "sha256:"+hex.EncodeToString(sum[:]) != ref {
		return nil, errors.New("image bytes do not match their blob reference")
	}
	return b, nil
}

// pushOne delivers one document: unchanged when the remote's head is its
// hash. Otherwise the remote's current skeleton (for an update) says which
// pages and element objects it already holds for this document
// (dedup_scope: document): the rest goes inline in one commit when it fits
// and needs no blob, else through negotiate → upload what is missing →
// commit. The delta printed is the protocol's (core §3.3, the multiset of
// content hashes) — the remote's answer, or for --dry-run computed here
// from the skeleton.
func pushOne(ctx context.Context, c *dpev1.Client, caps *wire.Capabilities, d *localDoc, head *wire.Head, dryRun bool) pushResult {
	r := pushResult{uri: d.uri}
	if d.err != nil {
		r.status, r.err, r.local = "failed", d.err, true
		return r
	}
	pre := dpev1.Precondition{IfAbsent: true}
	r.status = "created"
	have := map[string]bool{}
	var old []string
	if head != nil {
		if head.DocHash == d.hash {
			r.status = "unchanged"
			r.delta = wire.DeltaOf(d.elems, d.elems)
			return r
		}
		pre = dpev1.Precondition{BaseHash: head.DocHash}
		r.status = "updated"
		sk, err := c.GetSkeleton(ctx, d.uri, "")
		if err != nil {
			r.status, r.err = "failed", err
			return r
		}
		if sk.Skeleton != nil {
			for i, p := range sk.Skeleton.Pages {
				have[sk.Skeleton.Document.Pages[i]] = true
				for _, e := range p.Elements {
					have[e] = true
					old = append(old, e)
				}
			}
		}
	}
	// An element object cannot be chunked (only pages and blobs can): one
	// over the remote's max_payload_bytes is this document's error before
	// any byte is sent.
	for h, raw := range d.objects {
		if limit := caps.Limits.MaxPayloadBytes; !have[h] && limit > 0 && int64(len(raw)) > limit {
			r.status, r.err, r.local = "failed", fmt.Errorf("%s: an element of %d bytes is over this remote's max_payload_bytes (%d); it cannot be sent here (split the file)", d.path, len(raw), limit), true
			return r
		}
	}
	r.delta = wire.DeltaOf(old, d.elems)
	if dryRun {
		r.status = "would be " + r.status
		return r
	}
	req := &wire.CommitRequest{Document: d.docRaw}
	size, blobs := len(d.docRaw), false
	for _, h := range sortedKeys(d.pages) {
		if !have[h] {
			req.Pages = append(req.Pages, d.pages[h])
			size += len(d.pages[h]) + 1
		}
	}
	for _, h := range sortedKeys(d.objects) {
		if !have[h] {
			req.Objects = append(req.Objects, d.objects[h])
			size += len(d.objects[h]) + 1
			blobs = blobs || d.blobOf[h] != ""
		}
	}
	var res *wire.CommitResponse
	var err error
	if !blobs && int64(size)+4096 < caps.Limits.MaxPayloadBytes {
		res, err = c.Commit(ctx, d.uri, req, pre)
	} else {
		res, err = pushStaged(ctx, c, caps, d, pre)
	}
	if err != nil {
		r.status, r.err, r.delta = "failed", err, wire.Delta{}
		return r
	}
	r.status, r.delta = res.Status, res.Delta
	return r
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// pushStaged is the layered path of core §3.2: each answer names the next
// layer's missing objects, and only those are sent.
func pushStaged(ctx context.Context, c *dpev1.Client, caps *wire.Capabilities, d *localDoc, pre dpev1.Precondition) (*wire.CommitResponse, error) {
	neg, err := c.Negotiate(ctx, &wire.NegotiateRequest{FileURI: d.uri, Document: d.docRaw})
	if err != nil {
		return nil, err
	}
	sid := neg.StagingSession.ID
	var contents, blobs []string
	for _, ph := range neg.MissingPages {
		raw, ok := d.pages[ph]
		if !ok {
			return nil, fmt.Errorf("negotiate asked for page %s that the document does not have", ph)
		}
		var res *dpev1.UploadResult
		if int64(len(raw)) > caps.Limits.MaxPayloadBytes {
			res, err = c.UploadChunked(ctx, sid, dpev1.KindPage, ph, bytes.NewReader(raw), int64(len(raw)), caps.Limits.BlobChunkBytes, "")
		} else {
			res, err = c.Upload(ctx, sid, dpev1.KindPage, ph, raw, "")
		}
		if err != nil {
			return nil, err
		}
		contents = append(contents, res.Missing.MissingContentHashes...)
	}
	for _, h := range append(neg.MissingContentHashes, contents...) {
		raw, ok := d.objects[h]
		if !ok {
			return nil, fmt.Errorf("the remote asked for element %s that the document does not have", h)
		}
		res, err := c.Upload(ctx, sid, dpev1.KindObject, h, raw, "")
		if err != nil {
			return nil, err
		}
		blobs = append(blobs, res.Missing.MissingBlobs...)
	}
	for _, ref := range blobs {
		b, ok := d.blobs[ref]
		if !ok {
			return nil, fmt.Errorf("the remote asked for blob %s that the document does not have", ref)
		}
		if int64(len(b)) > min(caps.Limits.MaxPayloadBytes, caps.Limits.BlobChunkBytes) {
			_, err = c.UploadChunked(ctx, sid, dpev1.KindBlob, ref, bytes.NewReader(b), int64(len(b)), caps.Limits.BlobChunkBytes, "")
		} else {
			_, err = c.Upload(ctx, sid, dpev1.KindBlob, ref, b, "")
		}
		if err != nil {
			return nil, err
		}
	}
	return c.Commit(ctx, d.uri, &wire.CommitRequest{Document: d.docRaw, StagingSession: sid}, pre)
}

// prune deletes the remote documents under prefix that no local file
// makes, each with If-Match on the hash the listing gave.
func prune(ctx context.Context, c *dpev1.Client, prefix string, docs []*localDoc, dryRun bool) []pushResult {
	local := map[string]bool{}
	for _, d := range docs {
		if n, v := wire.NormalizeURI(d.uri); v == nil {
			local[n] = true
		}
	}
	var out []pushResult
	for e, err := range c.List(ctx, prefix, dpev1.ListOptions{}) {
		if err != nil {
			return append(out, pushResult{uri: prefix, status: "failed", err: err})
		}
		if local[e.FileURI] {
			continue
		}
		r := pushResult{uri: e.FileURI, status: "deleted"}
		if dryRun {
			r.status = "would be deleted"
		} else if err := c.Delete(ctx, e.FileURI, e.DocHash); err != nil {
			r.status, r.err = "failed", err
		}
		out = append(out, r)
	}
	return out
}

// printPush prints the summary: how many documents went which way, the
// total delta, the files skipped, and why the push stopped if it did.
// Each document's own line was printed as it finished (pushOutput).
func printPush(a *app, results []pushResult, skipped int, gone error) error {
	count := map[string]int{}
	var total wire.Delta
	failed := 0
	for _, r := range results {
		count[r.status]++
		if r.err != nil {
			failed++
			continue // a failed document changed nothing
		}
		total.Added += r.delta.Added
		total.Removed += r.delta.Removed
		total.Retained += r.delta.Retained
	}
	var parts []string
	for _, k := range sortedKeys(count) {
		parts = append(parts, fmt.Sprintf("%d %s", count[k], k))
	}
	if skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", skipped))
	}
	what := ""
	if len(parts) > 0 {
		what = ": " + strings.Join(parts, ", ")
	}
	// Every document unchanged: the line says so in words, not only by
	// its counts (the remote was asked, nothing went).
	nothing := ""
	if len(results) > 0 && count["unchanged"] == len(results) {
		nothing = " (nothing to send: the remote has every document as it is here)"
	}
	fmt.Fprintf(a.stdout, "push: %s%s; delta +%d -%d =%d%s\n", plural.Count(len(results), "document", "documents"), what, total.Added, total.Removed, total.Retained, nothing)
	if gone != nil {
		n := count["not sent"]
		return &exitError{code: exitRuntime, msg: fmt.Sprintf("push stopped: the remote stopped answering (%v); %s not sent", gone, wasWere(plural.Count(n, "document", "documents"), n))}
	}
	if failed > 0 {
		return &exitError{code: pushExit(results), msg: fmt.Sprintf("push: %d of %s failed", failed, plural.Count(len(results), "document", "documents"))}
	}
	return nil
}

// skippedClause is " (3 skipped, named above)", or nothing.
func skippedClause(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d skipped, named above)", n)
}

// wasWere is "1 document was", "2 documents were".
func wasWere(s string, n int) string {
	if n == 1 {
		return s + " was"
	}
	return s + " were"
}

// pushExit is 3 when every failure is the remote's refusal (a DPE code,
// such as a CAS conflict), else 1.
func pushExit(results []pushResult) int {
	for _, r := range results {
		if r.err != nil && !errors.As(r.err, new(*wire.Problem)) {
			return exitRuntime
		}
	}
	return exitProtocol
}

// resultLine is one document's line: its status, URI and delta, or its
// error (a CAS conflict says that nothing was overwritten).
func resultLine(r pushResult) string {
	if r.err != nil {
		why := r.err.Error()
		// A conflict is said once, by its code: the remote's detail would
		// repeat what the line says.
		switch {
		case errors.Is(r.err, wire.CodePreconditionFailed):
			why = "changed on the remote since it was read (" + string(wire.CodePreconditionFailed) + ": its version moved), not overwritten; push again to send this version over the new one"
		case errors.Is(r.err, wire.CodeAlreadyExists):
			why = "changed on the remote since it was read (" + string(wire.CodeAlreadyExists) + ": another push created it first), not overwritten; push again to send this version over the new one"
		}
		if r.local {
			return "dpe-tui: push: " + sanitize.Line(why)
		}
		return fmt.Sprintf("dpe-tui: push %s: %s", sanitize.Line(r.uri), sanitize.Line(why))
	}
	return fmt.Sprintf("%-16s %s  +%d -%d =%d", r.status, sanitize.Line(r.uri), r.delta.Added, r.delta.Removed, r.delta.Retained)
}
