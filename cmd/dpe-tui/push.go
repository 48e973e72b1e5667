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
	"github.com/dpe-tui/dpe-tui/sanitize"
)

type pushFlags struct {
	remote, prefix string
	dryRun, prune  bool
	jobs           int
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
	fs.StringVar(&f.remote, "remote", "", "the DPE v1 remote's URL")
	fs.StringVar(&f.prefix, "prefix", "", "file_uri folder of the documents, ending in / (added when missing; default: the folder's file:// URI)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "print what would change, write nothing")
	fs.BoolVar(&f.prune, "prune", false, "delete remote documents under the prefix whose files are gone")
	fs.IntVar(&f.jobs, "jobs", 4, "documents converted and sent at once")
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
	size      int                        // bytes of all objects inline
	err       error
}

// pushResult is what happened to one document.
type pushResult struct {
	uri, status string // created, updated, unchanged, deleted, would …, failed
	delta       wire.Delta
	err         error
}

func (a *app) runPush(f *pushFlags, root string) error {
	if f.remote == "" {
		return usageErrorf("push needs --remote URL")
	}
	if f.jobs < 1 || f.jobs > 64 {
		return usageErrorf("--jobs must be from 1 to 64, not %d", f.jobs)
	}
	files, base, err := pushFiles(root)
	if err != nil {
		return err
	}
	prefix := f.prefix
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
	c, caps, err := a.remoteClient(a.ctx, f.remote)
	if err != nil {
		return err
	}
	conv := convert.New(convert.Options{})
	defer conv.Close()
	// Convert and hash, f.jobs at once.
	docs := make([]*localDoc, len(files))
	parallel(f.jobs, len(files), func(i int) {
		rel, _ := filepath.Rel(base, files[i])
		docs[i] = buildLocal(a.ctx, conv, files[i], prefix+uriPath(rel))
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
			return err
		}
		copy(heads[i:], hs)
	}
	results := make([]pushResult, len(docs))
	parallel(f.jobs, len(docs), func(i int) {
		results[i] = pushOne(a.ctx, c, caps, docs[i], heads[i], f.dryRun)
	})
	if f.prune {
		results = append(results, prune(a.ctx, c, prefix, docs, f.dryRun)...)
	}
	return printPush(a, results)
}

// pushFiles lists the convertible files of root (a file or a folder), in
// lexical order, and the folder URIs are relative to.
func pushFiles(root string) ([]string, string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, "", fmt.Errorf("push: %w", err)
	}
	if !st.IsDir() {
		return []string{abs}, filepath.Dir(abs), nil
	}
	conv := convert.New(convert.Options{CacheDir: "-"})
	defer conv.Close()
	var files []string
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != abs && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() && conv.SupportedName(d.Name()) {
			if len(files) >= maxPushFiles {
				return fmt.Errorf("more than %d files", maxPushFiles)
			}
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("push %s: %w", sanitize.Line(root), err)
	}
	return files, abs, nil
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

// buildLocal converts one file and builds its DPE v1 objects through
// identity's v0.2 mapping (the one table from our documents to dpe1).
func buildLocal(ctx context.Context, conv *convert.Converter, path, uri string) *localDoc {
	d := &localDoc{path: path, uri: uri, pages: map[string]json.RawMessage{}, objects: map[string]json.RawMessage{}, blobs: map[string][]byte{}}
	body, err := conv.ConvertFile(ctx, path)
	if err != nil {
		d.err = err
		return d
	}
	doc, err := dpe.Decode(body, dpe.Limits{})
	if err != nil {
		d.err = err
		return d
	}
	for i := range doc.Pages {
		if err := doc.EnsurePage(i, dpe.Limits{}); err != nil {
			d.err = err
			return d
		}
	}
	r := identity.Compute(identity.Map(body, doc))
	if len(r.Problems) > 0 {
		p := r.Problems[0]
		d.err = fmt.Errorf("%s: %s", p.Path, p.Message)
		return d
	}
	// The canonical objects identity hashed are what the remote receives.
	for i, p := range r.Pages {
		d.pages[string(p.PageHash)] = p.Object
		for j, e := range p.Elements {
			d.objects[string(e.ContentHash)] = e.Object
			if e.Blob != "" {
				b, err := imageBytes(doc, i, j, e.Blob)
				if err != nil {
					d.err = fmt.Errorf("%s: %w", e.Path, err)
					return d
				}
				d.blobs[e.Blob] = b
			}
		}
	}
	d.docRaw, d.hash = r.Object, string(r.DocHash)
	for _, m := range []map[string]json.RawMessage{d.pages, d.objects} {
		for _, r := range m {
			d.size += len(r)
		}
	}
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
// hash; else the fast path (everything inline in one commit) when it fits
// and has no blob, or negotiate → upload what is missing → commit.
func pushOne(ctx context.Context, c *dpev1.Client, caps *wire.Capabilities, d *localDoc, head *wire.Head, dryRun bool) pushResult {
	r := pushResult{uri: d.uri}
	if d.err != nil {
		r.status, r.err = "failed", fmt.Errorf("%s: %w", sanitize.Line(d.path), d.err)
		return r
	}
	pre := dpev1.Precondition{IfAbsent: true}
	r.status = "created"
	if head != nil {
		if head.DocHash == d.hash {
			r.status = "unchanged"
			return r
		}
		pre = dpev1.Precondition{BaseHash: head.DocHash}
		r.status = "updated"
	}
	if dryRun {
		r.status = "would be " + r.status
		return r
	}
	var res *wire.CommitResponse
	var err error
	if len(d.blobs) == 0 && int64(d.size+len(d.docRaw))+4096 < caps.Limits.MaxPayloadBytes {
		req := &wire.CommitRequest{Document: d.docRaw}
		for _, h := range sortedKeys(d.pages) {
			req.Pages = append(req.Pages, d.pages[h])
		}
		for _, h := range sortedKeys(d.objects) {
			req.Objects = append(req.Objects, d.objects[h])
		}
		res, err = c.Commit(ctx, d.uri, req, pre)
	} else {
		res, err = pushStaged(ctx, c, caps, d, pre)
	}
	if err != nil {
		r.status, r.err = "failed", err
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

func printPush(a *app, results []pushResult) error {
	count := map[string]int{}
	var total wire.Delta
	failed := 0
	for _, r := range results {
		count[r.status]++
		total.Added += r.delta.Added
		total.Removed += r.delta.Removed
		total.Retained += r.delta.Retained
		switch {
		case r.err != nil:
			failed++
			why := r.err.Error()
			if errors.Is(r.err, wire.CodePreconditionFailed) || errors.Is(r.err, wire.CodeAlreadyExists) {
				why = "changed on the remote since it was read, not overwritten: " + why
			}
			fmt.Fprintf(a.stderr, "dpe-tui: push %s: %s\n", sanitize.Line(r.uri), sanitize.Line(why))
		case r.status == "unchanged":
		default:
			fmt.Fprintf(a.stdout, "%-16s %s  +%d -%d =%d\n", r.status, sanitize.Line(r.uri), r.delta.Added, r.delta.Removed, r.delta.Retained)
		}
	}
	var parts []string
	for _, k := range sortedKeys(count) {
		parts = append(parts, fmt.Sprintf("%d %s", count[k], k))
	}
	fmt.Fprintf(a.stdout, "push: %d documents: %s; delta +%d -%d =%d\n", len(results), strings.Join(parts, ", "), total.Added, total.Removed, total.Retained)
	if failed > 0 {
		return fmt.Errorf("push: %d of %d documents failed", failed, len(results))
	}
	return nil
}
