package remote

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/dpe-tui/dpe-tui/dpev1/wire"
)

func contractOK(r *http.Request) error {
	if v := r.Header.Get(wire.HeaderContract); v != wire.Contract {
		return fail(wire.CodeContractUnsupported, "%s %q is not one of [%s]", wire.HeaderContract, trim(v, 32), wire.Contract)
	}
	return nil
}

func (sess *sessionRecord) has(h string) bool { _, ok := sess.Done[h]; return ok }

// contentRange parses "bytes from-to/total" (http §4.7).
func contentRange(v string) (from, to, total int64, ok bool) {
	rest, found := strings.CutPrefix(v, "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	span, tot, found := strings.Cut(rest, "/")
	a, b, found2 := strings.Cut(span, "-")
	if !found || !found2 {
		return 0, 0, 0, false
	}
	var err1, err2, err3 error
	from, err1 = strconv.ParseInt(a, 10, 64)
	to, err2 = strconv.ParseInt(b, 10, 64)
	total, err3 = strconv.ParseInt(tot, 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || from < 0 || to < from || to >= total {
		return 0, 0, 0, false
	}
	return from, to, total, true
}

// upload is PUT and HEAD staging/{sid}/{pages|objects|blobs}/{hash}
// (http §4.6, §4.7), each step in the binding's order.
func (s *Server) upload(w http.ResponseWriter, r *http.Request, caller, sid, kind, hash string) error {
	switch kind {
	case "pages", "objects":
		if !wire.ValidHash(hash) {
			return fail(wire.CodeValidation, "path hash %q is not a %s hash", trim(hash, 80), wire.Contract)
		}
	case "blobs":
		if !wire.ValidBlobRef(hash) {
			return fail(wire.CodeValidation, "path %q is not a sha256:<64 hex> reference", trim(hash, 80))
		}
	default:
		http.NotFound(w, r)
		return nil
	}
	if r.Method == http.MethodHead {
		return s.uploadOffset(w, r, caller, sid, hash)
	}
	if cr := r.Header.Get("Content-Range"); cr != "" && kind != "objects" {
		return s.uploadChunk(w, r, caller, sid, kind, hash, cr)
	}
	body, err := s.readBody(r, s.lim.MaxPayloadBytes)
	if err != nil {
		return err
	}
	var page *wire.Page
	var elem *wire.Element
	if kind == "blobs" {
		if int64(len(body)) > s.lim.BlobMaxBytes {
			return fail(wire.CodePayloadTooLarge, "blob of %d bytes is over blob_max_bytes", len(body))
		}
		if err := contractOK(r); err != nil {
			return err
		}
		if blobRef(body) != hash {
			return fail(wire.CodeHashMismatch, "bytes hash to %s, not %s", blobRef(body), hash)
		}
	} else {
		if v := wire.CheckIJSON(body); v != nil {
			return fromViolation(v)
		}
		if err := contractOK(r); err != nil {
			return err
		}
		page, elem, err = s.parseStaged(kind, hash, body)
		if err != nil {
			return err
		}
	}
	return s.stage(w, caller, sid, kind, hash, body, page, elem)
}

func blobRef(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// parseStaged validates a page or element object and compares its
// recomputed hash with the path's.
func (s *Server) parseStaged(kind, hash string, body []byte) (*wire.Page, *wire.Element, error) {
	var got string
	var page *wire.Page
	var elem *wire.Element
	var v *wire.Violation
	if kind == "pages" {
		if int64(len(body)) > s.lim.PageMaxBytes {
			return nil, nil, fail(wire.CodePayloadTooLarge, "page object is over page_max_bytes")
		}
		page, got, v = wire.ParsePage(body)
	} else {
		elem, got, v = wire.ParseElement(body)
	}
	if v != nil {
		return nil, nil, fromViolation(v)
	}
	if got != hash {
		return nil, nil, fail(wire.CodeHashMismatch, "object hashes to %s, not %s", got, hash)
	}
	return page, elem, nil
}

// stage registers a complete object in the session: 201 new, 200 again.
func (s *Server) stage(w http.ResponseWriter, caller, sid, kind, hash string, body []byte, page *wire.Page, elem *wire.Element) error {
	var resp wire.UploadResponse
	status := http.StatusCreated
	var expires int64
	err := s.st.db.Update(func(tx *bolt.Tx) error {
		sess, err := s.loadSession(tx, sid, caller)
		if err != nil {
			return err
		}
		if sess.has(hash) {
			status = http.StatusOK
		} else {
			if err := s.st.putObject(hash, body); err != nil {
				return err
			}
			if elem != nil && elem.Blob != nil {
				if err := bucket(tx, bucketBlobsOf).Put([]byte(hash), []byte(*elem.Blob)); err != nil {
					return err
				}
			}
			sess.Done[hash] = int64(len(body))
			if p := sess.Partial[hash]; p != nil {
				delete(sess.Partial, hash)
				_ = os.Remove(s.st.partialPath(sid, hash))
			}
		}
		if page == nil && elem == nil && kind != "blobs" {
			// A repeated chunked page: its missing list needs the object.
			if b, err := s.st.getObject(hash, s.lim.PageMaxBytes); err == nil {
				page, _, _ = wire.ParsePage(b)
			}
		}
		sc, _, err := scopeOf(tx, sess.URI)
		if err != nil {
			return err
		}
		if page != nil || elem != nil {
			resp = missingBelow(sc, sess, kind, page, elem)
		}
		s.renew(sess)
		expires = sess.Expires
		return putJSON(bucket(tx, bucketSessions), sid, sess)
	})
	if err != nil {
		return err
	}
	w.Header().Set(wire.HeaderSessionExpires, expiresText(expires))
	writeJSON(w, status, resp)
	return nil
}

func (s *Server) uploadOffset(w http.ResponseWriter, r *http.Request, caller, sid, hash string) error {
	if err := contractOK(r); err != nil {
		return err
	}
	var off, expires int64
	err := s.st.db.View(func(tx *bolt.Tx) error {
		sess, err := s.loadSession(tx, sid, caller)
		if err != nil {
			return err
		}
		if n, ok := sess.Done[hash]; ok {
			off = n
		} else if p := sess.Partial[hash]; p != nil {
			off = p.Received
		}
		expires = sess.Expires
		return nil
	})
	if err != nil {
		return err
	}
	w.Header().Set(wire.HeaderUploadOffset, strconv.FormatInt(off, 10))
	w.Header().Set(wire.HeaderSessionExpires, expiresText(expires))
	w.WriteHeader(http.StatusOK)
	return nil
}

// uploadChunk is http §4.7's ladder for one chunk of a blob or a page.
func (s *Server) uploadChunk(w http.ResponseWriter, r *http.Request, caller, sid, kind, hash, cr string) error {
	body, err := s.readBody(r, s.lim.MaxPayloadBytes)
	if err != nil {
		return err
	}
	if err := contractOK(r); err != nil {
		return err
	}
	maxTotal := s.lim.BlobMaxBytes
	if kind == "pages" {
		maxTotal = s.lim.PageMaxBytes
	}
	var done bool
	var complete []byte
	var expires int64
	var offset int64
	err = s.st.db.Update(func(tx *bolt.Tx) error {
		sess, err := s.loadSession(tx, sid, caller)
		if err != nil {
			return err
		}
		if sess.has(hash) {
			done = true
			return nil
		}
		from, to, total, ok := contentRange(cr)
		if !ok || to-from+1 != int64(len(body)) {
			return fail(wire.CodeValidation, "Content-Range %q does not describe the %d bytes sent", trim(cr, 80), len(body))
		}
		p := sess.Partial[hash]
		if p != nil && p.Total != total {
			return fail(wire.CodeValidation, "total %d differs from the %d declared before", total, p.Total)
		}
		if int64(len(body)) > s.lim.BlobChunkBytes || total > maxTotal {
			return fail(wire.CodePayloadTooLarge, "chunk of %d or total of %d bytes is over the limits", len(body), total)
		}
		if p == nil {
			p = &partial{Total: total}
			sess.Partial[hash] = p
		}
		if from != p.Received {
			e := fail(wire.CodeValidation, "chunk starts at %d, %d bytes were received", from, p.Received)
			e.offset = p.Received
			return e
		}
		path := s.st.partialPath(sid, hash)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		// Bytes past what the record says were received (a crash between
		// the write and the commit of the count) are cut first.
		if err := f.Truncate(p.Received); err != nil {
			return err
		}
		if _, err := f.WriteAt(body, p.Received); err != nil {
			return err
		}
		// Durable before the count that says it was received.
		if err := f.Sync(); err != nil {
			return err
		}
		p.Received += int64(len(body))
		offset = p.Received
		if p.Received == p.Total {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			complete, err = io.ReadAll(f)
			if err != nil {
				return err
			}
		}
		s.renew(sess)
		expires = sess.Expires
		return putJSON(bucket(tx, bucketSessions), sid, sess)
	})
	if err != nil {
		return err
	}
	if done {
		// Idempotent (step 3): neither range nor body is checked.
		var page *wire.Page
		if kind == "pages" {
			if b, err := s.st.getObject(hash, s.lim.PageMaxBytes); err == nil {
				page, _, _ = wire.ParsePage(b)
			}
		}
		return s.stage(w, caller, sid, kind, hash, nil, page, nil)
	}
	if complete == nil {
		w.Header().Set(wire.HeaderUploadOffset, strconv.FormatInt(offset, 10))
		w.Header().Set(wire.HeaderSessionExpires, expiresText(expires))
		w.WriteHeader(http.StatusAccepted)
		return nil
	}
	// All bytes are in: verify, and on failure drop everything received.
	var page *wire.Page
	var verr error
	if kind == "blobs" {
		if blobRef(complete) != hash {
			verr = fail(wire.CodeHashMismatch, "bytes hash to %s, not %s", blobRef(complete), hash)
		}
	} else if v := wire.CheckIJSON(complete); v != nil {
		verr = fromViolation(v)
	} else {
		page, _, verr = s.parseStaged(kind, hash, complete)
	}
	if verr != nil {
		_ = s.st.db.Update(func(tx *bolt.Tx) error {
			sess, err := s.loadSession(tx, sid, caller)
			if err != nil {
				return err
			}
			delete(sess.Partial, hash)
			return putJSON(bucket(tx, bucketSessions), sid, sess)
		})
		_ = os.Remove(s.st.partialPath(sid, hash))
		return verr
	}
	return s.stage(w, caller, sid, kind, hash, complete, page, nil)
}

// condition is the CAS precondition of a commit or delete (http §3.2).
type condition struct {
	ifMatch  string // the quoted value's inside; "" none
	weak     bool   // a W/ or unquoted If-Match: never matches
	ifAbsent bool
	force    bool
}

func (c condition) present() bool { return c.ifMatch != "" || c.weak || c.ifAbsent || c.force }

func parseIfMatch(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, `"`) && strings.HasSuffix(v, `"`) && len(v) >= 2 {
		return v[1 : len(v)-1], false
	}
	return "", true
}

// stagedBlobOf is the blob of a staged or stored element, if it has one.
func stagedBlobOf(tx *bolt.Tx, content string) string {
	return string(bucket(tx, bucketBlobsOf).Get([]byte(content)))
}

// commitPlan is what step 6 found: the new closure and element sequence.
type commitPlan struct {
	closure  closure
	elements []string          // the document's content hashes, pages expanded
	stored   map[string][]byte // page objects read from the store, by hash
}

// maxMissingListed bounds each layer of a DPE_MISSING_CONTENT list.
const maxMissingListed = 1000

func (s *Server) commit(w http.ResponseWriter, r *http.Request, caller string) error {
	body, err := s.jsonBody(r)
	if err != nil {
		return err
	}
	uri, err := s.queryURI(r)
	if err != nil {
		return err
	}
	m, err := envelope(body, "document", "pages", "objects", "staging_session", "force")
	if err != nil {
		return err
	}
	if _, ok := m["document"]; !ok {
		return fail(wire.CodeValidation, "member document is required")
	}
	objects, _, err := member[[]json.RawMessage](m, "objects", false, "an array")
	if err != nil {
		return err
	}
	sid, _, err := member[string](m, "staging_session", false, "a string")
	if err != nil {
		return err
	}
	force, _, err := member[bool](m, "force", false, "a boolean")
	if err != nil {
		return err
	}
	doc, docHash, inPages, inPageRaw, err := documentAndPages(m)
	if err != nil {
		return err
	}
	inObjs := map[string]*wire.Element{}
	inObjRaw := map[string][]byte{}
	for _, raw := range objects {
		e, h, v := wire.ParseElement(raw)
		if v != nil {
			return fromViolation(v)
		}
		inObjs[h], inObjRaw[h] = e, raw
	}
	var cond condition
	if v := r.Header.Get("If-Match"); v != "" {
		cond.ifMatch, cond.weak = parseIfMatch(v)
	}
	if v := r.Header.Get("If-None-Match"); v != "" {
		if strings.TrimSpace(v) != "*" {
			return fail(wire.CodeValidation, "If-None-Match on commit must be *")
		}
		cond.ifAbsent = true
	}
	if force && (cond.ifMatch != "" || cond.weak || cond.ifAbsent) {
		return fail(wire.CodeValidation, "force with a conditional header")
	}
	if (cond.ifMatch != "" || cond.weak) && cond.ifAbsent {
		return fail(wire.CodeValidation, "If-Match with If-None-Match")
	}
	cond.force = force
	// Step 2: authorization, before anything that depends on the document.
	if !s.mayWrite(caller, uri) || force && s.opt.CanForce != nil && !s.opt.CanForce(caller) {
		return fail(wire.CodeForbidden, "no write authorization for %s", uri)
	}
	// Step 3.
	if !cond.present() {
		return fail(wire.CodePreconditionRequired, "commit needs If-Match, If-None-Match: * or force")
	}
	var resp wire.CommitResponse
	status := http.StatusOK
	consumed := ""
	err = s.st.db.Update(func(tx *bolt.Tx) error {
		cur, err := getDoc(tx, uri)
		if err != nil {
			return err
		}
		// Step 4: unchanged, whatever the precondition says.
		if cur != nil && cur.Hash == docHash {
			resp = wire.CommitResponse{Status: wire.StatusUnchanged, DocHash: docHash,
				Delta: wire.Delta{Retained: cur.elementCount(s.st)}}
			return nil
		}
		// Step 5.
		switch {
		case cond.ifMatch != "" || cond.weak:
			if cur == nil {
				return onConditional(fail(wire.CodeNotFound, "no document %s", uri))
			}
			if cond.weak || cond.ifMatch != cur.Hash {
				return onConditional(fail(wire.CodePreconditionFailed, "expected %s, current %s", trim(cond.ifMatch, 80), cur.Hash))
			}
		case cond.ifAbsent:
			if cur != nil {
				return onConditional(fail(wire.CodeAlreadyExists, "%s exists", uri))
			}
		}
		// Step 6.
		sess := &sessionRecord{Done: map[string]int64{}}
		if sid != "" {
			if sess, err = s.loadSession(tx, sid, caller); err != nil {
				return err
			}
			if sess.URI != uri {
				return fail(wire.CodeSessionExpired, "staging session is not usable")
			}
		}
		sc := scope{}
		if cur != nil {
			sc = cur.Closure.set()
		}
		plan, missing, err := s.planCommit(tx, doc, sc, sess, inPages, inObjs)
		if err != nil {
			return err
		}
		if missing != nil {
			e := fail(wire.CodeMissingContent, "%d pages, %d element objects, %d blobs are missing",
				len(missing.Pages), len(missing.ContentHashes), len(missing.Blobs))
			e.missing, e.trunc = truncateMissing(missing)
			return e
		}
		// Everything is there: store the inline objects, then switch the
		// record in this one transaction.
		var written []string
		put := func(h string, raw []byte) error {
			p, w, err := s.st.writeObject(h, raw)
			if w {
				written = append(written, p)
			}
			return err
		}
		for h, raw := range inPageRaw {
			if err := put(h, raw); err != nil {
				return err
			}
		}
		for h, raw := range inObjRaw {
			if err := put(h, raw); err != nil {
				return err
			}
			if e := inObjs[h]; e.Blob != nil {
				if err := bucket(tx, bucketBlobsOf).Put([]byte(h), []byte(*e.Blob)); err != nil {
					return err
				}
			}
		}
		// The skeleton's pages array, whole, under the doc_hash: a read of
		// the skeleton is then one file, not one per page.
		pack, err := skeletonPack(doc.Pages, inPageRaw, plan.stored)
		if err != nil {
			return err
		}
		if err := put(packName(docHash), pack); err != nil {
			return err
		}
		// The objects are durable before the record that references them.
		if len(written) > 0 {
			if err := syncFiles(s.st.dir, written); err != nil {
				return err
			}
		}
		var oldElems []string
		var oldAll []string
		resp.Status = wire.StatusCreated
		status = http.StatusCreated
		if cur != nil {
			resp.Status, status = wire.StatusUpdated, http.StatusOK
			if oldElems, err = cur.elements(s.st); err != nil {
				return err
			}
			oldAll = cur.Closure.all()
		}
		resp.DocHash = docHash
		resp.Delta = wire.DeltaOf(oldElems, plan.elements)
		rec := docRecord{Hash: docHash, Document: json.RawMessage(m["document"]), Closure: plan.closure, Elements: len(plan.elements)}
		if err := putJSON(bucket(tx, bucketDocs), uri, rec); err != nil {
			return err
		}
		if err := setOwners(tx, uri, oldAll, plan.closure.all()); err != nil {
			return err
		}
		if sid != "" {
			consumed = sid
			return bucket(tx, bucketSessions).Delete([]byte(sid))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if consumed != "" {
		_ = os.RemoveAll(filepath.Join(s.st.dir, "staging", consumed))
	}
	setDocHeaders(w, resp.DocHash)
	writeJSON(w, status, resp)
	return nil
}

func truncateMissing(m *wire.Missing) (*wire.Missing, bool) {
	cut := func(l []string) ([]string, bool) {
		if len(l) > maxMissingListed {
			return l[:maxMissingListed], true
		}
		return l, false
	}
	var t1, t2, t3 bool
	m.Pages, t1 = cut(m.Pages)
	m.ContentHashes, t2 = cut(m.ContentHashes)
	m.Blobs, t3 = cut(m.Blobs)
	return m, t1 || t2 || t3
}

// planCommit walks the document's tree and finds every object in scope ∪
// session ∪ inline (core §3.3 step 6); a non-nil Missing lists the rest.
func (s *Server) planCommit(tx *bolt.Tx, doc *wire.Document, sc scope, sess *sessionRecord,
	inPages map[string]*wire.Page, inObjs map[string]*wire.Element) (*commitPlan, *wire.Missing, error) {
	var plan commitPlan
	var miss wire.Missing
	seenPage, seenElem, seenBlob := map[string]bool{}, map[string]bool{}, map[string]bool{}
	pageElems := map[string][]string{}
	for _, ph := range doc.Pages {
		if seenPage[ph] {
			plan.elements = append(plan.elements, pageElems[ph]...)
			continue
		}
		seenPage[ph] = true
		var p *wire.Page
		switch {
		case inPages[ph] != nil:
			p = inPages[ph]
		case sc[ph] || sess.has(ph):
			b, err := s.st.getObject(ph, s.lim.PageMaxBytes)
			if err != nil {
				return nil, nil, fmt.Errorf("page %s: %w", ph, err)
			}
			var v *wire.Violation
			if p, _, v = wire.ParsePage(b); v != nil {
				return nil, nil, fmt.Errorf("stored page %s: %w", ph, v)
			}
			if plan.stored == nil {
				plan.stored = map[string][]byte{}
			}
			plan.stored[ph] = b
		default:
			miss.Pages = append(miss.Pages, ph)
			continue
		}
		plan.closure.Pages = append(plan.closure.Pages, ph)
		pageElems[ph] = p.Elements
		plan.elements = append(plan.elements, p.Elements...)
		for _, e := range p.Elements {
			if seenElem[e] {
				continue
			}
			seenElem[e] = true
			blob := ""
			switch {
			case inObjs[e] != nil:
				if b := inObjs[e].Blob; b != nil {
					blob = *b
				}
			case sc[e] || sess.has(e):
				blob = stagedBlobOf(tx, e)
			default:
				miss.ContentHashes = append(miss.ContentHashes, e)
				continue
			}
			plan.closure.Contents = append(plan.closure.Contents, e)
			if blob == "" || seenBlob[blob] {
				continue
			}
			seenBlob[blob] = true
			if sc[blob] || sess.has(blob) {
				plan.closure.Blobs = append(plan.closure.Blobs, blob)
			} else {
				miss.Blobs = append(miss.Blobs, blob)
			}
		}
	}
	if len(miss.Pages)+len(miss.ContentHashes)+len(miss.Blobs) > 0 {
		return nil, &miss, nil
	}
	return &plan, nil, nil
}

// elements expands the record's pages into its content hash sequence.
func (rec *docRecord) elements(st *store) ([]string, error) {
	var doc wire.Document
	if err := json.Unmarshal(rec.Document, &doc); err != nil {
		return nil, err
	}
	cache := map[string][]string{}
	var out []string
	for _, ph := range doc.Pages {
		els, ok := cache[ph]
		if !ok {
			b, err := st.getObject(ph, 1<<40)
			if err != nil {
				return nil, fmt.Errorf("page %s: %w", ph, err)
			}
			var p wire.Page
			if err := json.Unmarshal(b, &p); err != nil {
				return nil, err
			}
			els = p.Elements
			cache[ph] = els
		}
		out = append(out, els...)
	}
	return out, nil
}

func (rec *docRecord) elementCount(*store) int { return rec.Elements }

func (s *Server) delete(w http.ResponseWriter, r *http.Request, caller string) error {
	uri, err := s.queryURI(r)
	if err != nil {
		return err
	}
	if !s.mayWrite(caller, uri) {
		return fail(wire.CodeForbidden, "no write authorization for %s", uri)
	}
	v := r.Header.Get("If-Match")
	if v == "" {
		return fail(wire.CodePreconditionRequired, "delete needs If-Match")
	}
	want, weak := parseIfMatch(v)
	err = s.st.db.Update(func(tx *bolt.Tx) error {
		cur, err := getDoc(tx, uri)
		if err != nil {
			return err
		}
		if cur == nil {
			return onConditional(fail(wire.CodeNotFound, "no document %s", uri))
		}
		if weak || want != cur.Hash {
			return onConditional(fail(wire.CodePreconditionFailed, "expected %s, current %s", trim(want, 80), cur.Hash))
		}
		if err := setOwners(tx, uri, cur.Closure.all(), nil); err != nil {
			return err
		}
		return bucket(tx, bucketDocs).Delete([]byte(uri))
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) move(w http.ResponseWriter, r *http.Request, caller string) error {
	body, err := s.jsonBody(r)
	if err != nil {
		return err
	}
	m, err := envelope(body, "from_uri", "to_uri", "base_hash")
	if err != nil {
		return err
	}
	rawFrom, _, err := member[string](m, "from_uri", true, "a string")
	if err != nil {
		return err
	}
	rawTo, _, err := member[string](m, "to_uri", true, "a string")
	if err != nil {
		return err
	}
	base, hasBase, err := member[string](m, "base_hash", false, "a string")
	if err != nil {
		return err
	}
	from, err := normalizeURI(rawFrom)
	if err != nil {
		return err
	}
	to, err := normalizeURI(rawTo)
	if err != nil {
		return err
	}
	if !s.mayWrite(caller, from) || !s.mayWrite(caller, to) {
		return fail(wire.CodeForbidden, "no write authorization for both %s and %s", from, to)
	}
	if !hasBase {
		return fail(wire.CodePreconditionRequired, "move needs base_hash")
	}
	var hash string
	err = s.st.db.Update(func(tx *bolt.Tx) error {
		src, err := getDoc(tx, from)
		if err != nil {
			return err
		}
		dst, err := getDoc(tx, to)
		if err != nil {
			return err
		}
		if src == nil {
			if dst != nil && dst.Hash == base {
				hash = dst.Hash // the state asked for is there already
				return nil
			}
			return fail(wire.CodeNotFound, "no document %s", from)
		}
		if src.Hash != base {
			return fail(wire.CodePreconditionFailed, "expected %s, current %s", trim(base, 80), src.Hash)
		}
		if dst != nil {
			return fail(wire.CodeAlreadyExists, "%s exists", to)
		}
		hash = src.Hash
		all := src.Closure.all()
		if err := setOwners(tx, from, all, nil); err != nil {
			return err
		}
		if err := setOwners(tx, to, nil, all); err != nil {
			return err
		}
		if err := bucket(tx, bucketDocs).Delete([]byte(from)); err != nil {
			return err
		}
		return putJSON(bucket(tx, bucketDocs), to, src)
	})
	if err != nil {
		return err
	}
	w.Header().Set(wire.HeaderDocHash, hash)
	base0 := strings.TrimSuffix(r.URL.Path, "/move")
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	w.Header().Set("Content-Location", scheme+"://"+r.Host+base0+"/documents?uri="+url.QueryEscape(to))
	writeJSON(w, http.StatusOK, wire.MoveResponse{DocHash: hash})
	return nil
}

// readObject is the read extension: an object or blob, only when a
// document the caller may read references it (core §3's bound on any
// read by hash).
func (s *Server) readObject(w http.ResponseWriter, r *http.Request, caller, hash string) error {
	if !wire.ValidHash(hash) && !wire.ValidBlobRef(hash) {
		return fail(wire.CodeValidation, "%q is not a hash", trim(hash, 80))
	}
	readable := false
	_ = s.st.db.View(func(tx *bolt.Tx) error {
		for _, u := range owners(tx, hash, 1000) {
			if s.mayRead(caller, u) {
				readable = true
				break
			}
		}
		return nil
	})
	if !readable {
		return fail(wire.CodeNotFound, "no readable document references %s", hash)
	}
	f, err := os.Open(s.st.objectPath(hash))
	if err != nil {
		return fail(wire.CodeNotFound, "no object %s", hash)
	}
	defer f.Close()
	ct := "application/json"
	if wire.ValidBlobRef(hash) {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	_, _ = io.Copy(w, f)
	return nil
}

// packName is where a document's skeleton pack lives: the objects
// directory under a name no dpe1 or sha256 hash has.
func packName(docHash string) string {
	return "pack:" + strings.TrimPrefix(docHash, wire.HashPrefix)
}

// skeletonPack is the pages member of a document's get_skeleton answer:
// its page objects as stored, in the document's order. Like the objects
// it holds, it never changes under its doc_hash.
func skeletonPack(pages []string, inline, stored map[string][]byte) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, ph := range pages {
		raw := inline[ph]
		if raw == nil {
			raw = stored[ph]
		}
		if raw == nil {
			return nil, fmt.Errorf("page %s: not at hand for the skeleton", ph)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(raw)
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}
