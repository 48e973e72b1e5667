package remote

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/dpe-tui/dpe-tui/dpev1/wire"
)

// DefaultLimits are the limits of http §4.1's example, which a remote
// on one machine can hold.
func DefaultLimits() wire.Limits {
	return wire.Limits{
		MaxPayloadBytes:   8 << 20,
		PageMaxBytes:      256 << 20,
		StagingTTLSeconds: 86400,
		BlobMaxBytes:      100 << 20,
		BlobChunkBytes:    8 << 20,
		BatchHeadMax:      500,
		ListPageMax:       1000,
	}
}

// Options configure a Server; the zero value is a remote that every caller
// may read and write, with DefaultLimits.
type Options struct {
	// Limits: a zero field takes DefaultLimits' value. StagingTTLSeconds
	// below 3600 is raised to it (core §3.4).
	Limits wire.Limits
	// ReadObjects turns on the read extension (GET objects/{hash}).
	ReadObjects bool
	// Authenticate names the caller of r; false answers 401. Nil: every
	// caller is "".
	Authenticate func(r *http.Request) (caller string, ok bool)
	// CanWrite, CanForce and CanRead decide authorization; nil allows.
	CanWrite func(caller, fileURI string) bool
	CanForce func(caller string) bool
	CanRead  func(caller, fileURI string) bool
	// RateLimit requests per RatePer per caller; 0: no limit.
	RateLimit int
	RatePer   time.Duration
	// MaxInFlight requests at once; more are answered DPE_UNAVAILABLE. 0: no bound.
	MaxInFlight int
	// Now is the clock of session expiry (tests move it); nil: time.Now.
	Now func() time.Time
}

// Server is a DPE v1 remote (an http.Handler) on one store directory.
type Server struct {
	st       *store
	opt      Options
	lim      wire.Limits
	inflight chan struct{}

	mu     sync.Mutex
	window map[string]*rateWindow
}

type rateWindow struct {
	start time.Time
	n     int
}

// Open opens (or creates) the store in dir.
func Open(dir string, opt Options) (*Server, error) {
	st, err := openStore(dir)
	if err != nil {
		return nil, err
	}
	lim, d := opt.Limits, DefaultLimits()
	def := func(v *int64, dv int64) {
		if *v <= 0 {
			*v = dv
		}
	}
	def(&lim.MaxPayloadBytes, d.MaxPayloadBytes)
	def(&lim.PageMaxBytes, d.PageMaxBytes)
	def(&lim.StagingTTLSeconds, d.StagingTTLSeconds)
	def(&lim.BlobMaxBytes, d.BlobMaxBytes)
	def(&lim.BlobChunkBytes, d.BlobChunkBytes)
	lim.StagingTTLSeconds = max(lim.StagingTTLSeconds, 3600)
	if lim.BatchHeadMax <= 0 {
		lim.BatchHeadMax = d.BatchHeadMax
	}
	if lim.ListPageMax <= 0 {
		lim.ListPageMax = d.ListPageMax
	}
	s := &Server{st: st, opt: opt, lim: lim, window: map[string]*rateWindow{}}
	if opt.MaxInFlight > 0 {
		s.inflight = make(chan struct{}, opt.MaxInFlight)
	}
	return s, nil
}

// Close closes the store.
func (s *Server) Close() error { return s.st.close() }

func (s *Server) now() time.Time {
	if s.opt.Now != nil {
		return s.opt.Now()
	}
	return time.Now()
}

// apiError is a DPE error on its way to the response.
type apiError struct {
	code    wire.Code
	status  int
	detail  string
	missing *wire.Missing
	trunc   bool
	offset  int64 // DPE-Upload-Offset, -1: none
}

func (e *apiError) Error() string { return string(e.code) + ": " + e.detail }

// fail builds an apiError with the status core §6's code takes on most
// endpoints (http §5); the conditional-header and move sites say theirs.
func fail(code wire.Code, format string, a ...any) *apiError {
	st := http.StatusBadRequest
	switch code {
	case wire.CodeForbidden:
		st = http.StatusForbidden
	case wire.CodeNotFound:
		st = http.StatusNotFound
	case wire.CodePreconditionFailed, wire.CodeAlreadyExists:
		st = http.StatusConflict
	case wire.CodeSessionExpired:
		st = http.StatusGone
	case wire.CodePayloadTooLarge:
		st = http.StatusRequestEntityTooLarge
	case wire.CodePreconditionRequired:
		st = http.StatusPreconditionRequired
	case wire.CodeRateLimited:
		st = http.StatusTooManyRequests
	case wire.CodeUnavailable:
		st = http.StatusServiceUnavailable
	}
	return &apiError{code: code, status: st, detail: fmt.Sprintf(format, a...), offset: -1}
}

// onConditional is the status of a code decided by a conditional header
// of PUT / DELETE documents (http §3.2): 412.
func onConditional(e *apiError) *apiError { e.status = http.StatusPreconditionFailed; return e }

// fromViolation is a refusal of an object; the detail names where
// (pointer) and why, and the code is said once (the problem carries it).
func fromViolation(v *wire.Violation) *apiError { return fail(v.Code, "%s", v.Detail()) }

// documentAndPages validates the document member of a negotiate or
// commit body and the page objects sent with it (its pages member): the
// document with its doc_hash, the pages by page_hash, with their bytes.
func documentAndPages(m map[string]json.RawMessage) (*wire.Document, string, map[string]*wire.Page, map[string][]byte, error) {
	pages, _, err := member[[]json.RawMessage](m, "pages", false, "an array")
	if err != nil {
		return nil, "", nil, nil, err
	}
	doc, docHash, v := wire.ParseDocument(m["document"])
	if v != nil {
		return nil, "", nil, nil, fromViolation(v)
	}
	parsed := map[string]*wire.Page{}
	raws := map[string][]byte{}
	for _, raw := range pages {
		p, h, v := wire.ParsePage(raw)
		if v != nil {
			return nil, "", nil, nil, fromViolation(v)
		}
		parsed[h], raws[h] = p, raw
	}
	return doc, docHash, parsed, raws, nil
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, e *apiError, retryAfter int) {
	h := w.Header()
	h.Set(wire.HeaderErrorCode, string(e.code))
	if e.offset >= 0 {
		h.Set(wire.HeaderUploadOffset, strconv.FormatInt(e.offset, 10))
	}
	if retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(e.status)
		return
	}
	p := wire.Problem{Type: e.code.Type(), Title: strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(string(e.code), "DPE_"), "_", " ")),
		Status: e.status, Detail: e.detail, Code: e.code, Retryable: e.code.Retryable(), Missing: e.missing, MissingTruncated: e.trunc}
	body, _ := json.Marshal(p)
	h.Set("Content-Type", wire.MediaProblem)
	w.WriteHeader(e.status)
	_, _ = w.Write(body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// ServeHTTP routes the binding's paths (http §1), relative to the remote.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Transport layer first: it may answer at any time (core §3.3 step 0).
	if s.inflight != nil {
		select {
		case s.inflight <- struct{}{}:
			defer func() { <-s.inflight }()
		default:
			s.writeError(w, r, fail(wire.CodeUnavailable, "%d requests in flight", s.opt.MaxInFlight), 1)
			return
		}
	}
	caller := ""
	if s.opt.Authenticate != nil {
		c, ok := s.opt.Authenticate(r)
		if !ok {
			// A problem (RFC 9457) without a DPE code: authentication is
			// the transport's (core §3.3 step 0), no DPE code names it.
			w.Header().Set("WWW-Authenticate", `Bearer realm="dpe"`)
			w.Header().Set("Content-Type", wire.MediaProblem)
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"type":"about:blank","title":"Unauthorized","status":401,"detail":"this remote needs a bearer token (Authorization: Bearer …)"}`))
			return
		}
		caller = c
	}
	if wait := s.rateWait(caller); wait > 0 {
		s.writeError(w, r, fail(wire.CodeRateLimited, "over %d requests per %v", s.opt.RateLimit, s.opt.RatePer), wait)
		return
	}
	if err := s.route(w, r, caller); err != nil {
		var e *apiError
		if !errors.As(err, &e) {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		s.writeError(w, r, e, 0)
	}
}

// rateWait is 0, or the seconds until caller's window reopens.
func (s *Server) rateWait(caller string) int {
	if s.opt.RateLimit <= 0 {
		return 0
	}
	per := s.opt.RatePer
	if per <= 0 {
		per = time.Second
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	rw := s.window[caller]
	if rw == nil || now.Sub(rw.start) >= per {
		if len(s.window) > 10000 {
			clear(s.window) // bounded: forgetting windows only forgives
		}
		rw = &rateWindow{start: now}
		s.window[caller] = rw
	}
	rw.n++
	if rw.n <= s.opt.RateLimit {
		return 0
	}
	return int(math.Ceil(rw.start.Add(per).Sub(now).Seconds()))
}

func (s *Server) route(w http.ResponseWriter, r *http.Request, caller string) error {
	p := r.URL.Path
	switch {
	case strings.HasSuffix(p, "/capabilities") && r.Method == http.MethodGet:
		return s.capabilities(w)
	}
	// Endpoints without a JSON body check the contract header first; the
	// others after I-JSON (http §3.1), in their handlers.
	if r.Method == http.MethodGet || r.Method == http.MethodHead && !strings.Contains(p, "/staging/") || r.Method == http.MethodDelete {
		if err := contractOK(r); err != nil {
			return err
		}
	}
	switch {
	case strings.HasSuffix(p, "/documents"):
		w.Header().Set("Vary", wire.HeaderContract)
		q := r.URL.Query()
		switch r.Method {
		case http.MethodHead:
			return s.head(w, r, caller)
		case http.MethodGet:
			if q.Has("uri") {
				return s.skeleton(w, r, caller)
			}
			return s.list(w, r, caller)
		case http.MethodPut:
			return s.commit(w, r, caller)
		case http.MethodDelete:
			return s.delete(w, r, caller)
		}
	case strings.HasSuffix(p, "/heads") && r.Method == http.MethodPost:
		return s.batchHead(w, r, caller)
	case strings.HasSuffix(p, "/negotiate") && r.Method == http.MethodPost:
		return s.negotiate(w, r, caller)
	case strings.HasSuffix(p, "/move") && r.Method == http.MethodPost:
		return s.move(w, r, caller)
	}
	if i := strings.LastIndex(p, "/staging/"); i >= 0 {
		parts := strings.Split(p[i+len("/staging/"):], "/")
		if len(parts) == 3 && (r.Method == http.MethodPut || r.Method == http.MethodHead) {
			return s.upload(w, r, caller, parts[0], parts[1], parts[2])
		}
	}
	if i := strings.LastIndex(p, "/objects/"); i >= 0 && s.opt.ReadObjects && r.Method == http.MethodGet {
		return s.readObject(w, r, caller, p[i+len("/objects/"):])
	}
	http.NotFound(w, r)
	return nil
}

func trim(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func (s *Server) capabilities(w http.ResponseWriter) error {
	features := []string{wire.FeatureMove}
	if s.opt.ReadObjects {
		features = append(features, wire.FeatureReadObjects)
	}
	writeJSON(w, http.StatusOK, wire.Capabilities{
		Protocol: wire.Protocol, HashContracts: []string{wire.Contract}, Limits: s.lim,
		ContentEncodings: []string{}, Features: features,
	})
	return nil
}

// readBody reads at most limit bytes; more is DPE_PAYLOAD_TOO_LARGE
// (the transport step of every ladder).
func (s *Server) readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, fail(wire.CodePayloadTooLarge, "request body of %d bytes is over %d", r.ContentLength, limit)
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, fail(wire.CodePayloadTooLarge, "request body is over %d bytes", limit)
	}
	return b, nil
}

// jsonBody is the first steps of http §3.1 for an endpoint with a JSON
// body: size, I-JSON, the contract header.
func (s *Server) jsonBody(r *http.Request) ([]byte, error) {
	body, err := s.readBody(r, s.lim.MaxPayloadBytes)
	if err != nil {
		return nil, err
	}
	if v := wire.CheckIJSON(body); v != nil {
		return nil, fromViolation(v)
	}
	if err := contractOK(r); err != nil {
		return nil, err
	}
	return body, nil
}

// envelope decodes a request envelope: an object whose members are all
// in allowed (http §3.1 step 3); a null member is absent.
func envelope(body []byte, allowed ...string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, fail(wire.CodeValidation, "request body is not a JSON object")
	}
	for k, v := range m {
		ok := false
		for _, a := range allowed {
			ok = ok || a == k
		}
		if !ok {
			return nil, fail(wire.CodeValidation, "undefined member %q", trim(k, 64))
		}
		if string(v) == "null" {
			delete(m, k)
		}
	}
	return m, nil
}

func member[T any](m map[string]json.RawMessage, k string, required bool, kind string) (T, bool, error) {
	var v T
	raw, ok := m[k]
	if !ok {
		if required {
			return v, false, fail(wire.CodeValidation, "member %s is required", k)
		}
		return v, false, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, false, fail(wire.CodeValidation, "member %s is not %s", k, kind)
	}
	return v, true, nil
}

func normalizeURI(s string) (string, error) {
	n, v := wire.NormalizeURI(s)
	if v != nil {
		return "", fromViolation(v)
	}
	return n, nil
}

func (s *Server) queryURI(r *http.Request) (string, error) {
	return normalizeURI(r.URL.Query().Get("uri"))
}

func (s *Server) mayWrite(caller, uri string) bool {
	return s.opt.CanWrite == nil || s.opt.CanWrite(caller, uri)
}

func (s *Server) mayRead(caller, uri string) bool {
	return s.opt.CanRead == nil || s.opt.CanRead(caller, uri)
}

func getDoc(tx *bolt.Tx, uri string) (*docRecord, error) {
	var rec docRecord
	ok, err := getJSON(bucket(tx, bucketDocs), uri, &rec)
	if err != nil || !ok {
		return nil, err
	}
	return &rec, nil
}

func setDocHeaders(w http.ResponseWriter, hash string) {
	w.Header().Set(wire.HeaderDocHash, hash)
	w.Header().Set("ETag", `"`+hash+`"`)
}

// readableDoc is the document of r's uri query, when the caller may read
// it; else DPE_NOT_FOUND (a document the caller may not read is one it
// cannot tell from none).
func (s *Server) readableDoc(r *http.Request, caller string) (*docRecord, string, error) {
	uri, err := s.queryURI(r)
	if err != nil {
		return nil, "", err
	}
	var rec *docRecord
	if err := s.st.db.View(func(tx *bolt.Tx) error { rec, err = getDoc(tx, uri); return err }); err != nil {
		return nil, "", err
	}
	if rec == nil || !s.mayRead(caller, uri) {
		return nil, "", fail(wire.CodeNotFound, "no document %s", uri)
	}
	return rec, uri, nil
}

func (s *Server) head(w http.ResponseWriter, r *http.Request, caller string) error {
	rec, _, err := s.readableDoc(r, caller)
	if err != nil {
		return err
	}
	setDocHeaders(w, rec.Hash)
	w.WriteHeader(http.StatusOK)
	return nil
}

// etagMatches is If-None-Match's weak comparison (http §3.3).
func etagMatches(header, hash string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == `"`+hash+`"` {
			return true
		}
	}
	return false
}

func (s *Server) skeleton(w http.ResponseWriter, r *http.Request, caller string) error {
	rec, uri, err := s.readableDoc(r, caller)
	if err != nil {
		return err
	}
	setDocHeaders(w, rec.Hash)
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, rec.Hash) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	var doc wire.Document
	if err := json.Unmarshal(rec.Document, &doc); err != nil {
		return err
	}
	// Page objects never change under their hash and are never removed, so
	// reading them after the transaction is consistent with rec.
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	head, _ := json.Marshal(map[string]any{"file_uri": uri, "doc_hash": rec.Hash, "document": rec.Document})
	_, _ = w.Write(head[:len(head)-1])
	if f, err := os.Open(s.st.objectPath(packName(rec.Hash))); err == nil {
		// The pages array as committed: one file, written and synced
		// before the record that names it.
		defer f.Close()
		_, _ = io.WriteString(w, `,"pages":`)
		_, _ = io.Copy(w, f)
		_, _ = io.WriteString(w, "}")
		return nil
	}
	// A document committed before packs were written: page by page.
	_, _ = io.WriteString(w, `,"pages":[`)
	for i, ph := range doc.Pages {
		b, err := s.st.getObject(ph, s.lim.PageMaxBytes)
		if err != nil {
			return nil // the status is sent; a cut body is what the client sees
		}
		if i > 0 {
			_, _ = io.WriteString(w, ",")
		}
		_, _ = w.Write(b)
	}
	_, _ = io.WriteString(w, "]}")
	return nil
}

func (s *Server) batchHead(w http.ResponseWriter, r *http.Request, caller string) error {
	body, err := s.jsonBody(r)
	if err != nil {
		return err
	}
	m, err := envelope(body, "uris")
	if err != nil {
		return err
	}
	uris, _, err := member[[]string](m, "uris", true, "an array of strings")
	if err != nil {
		return err
	}
	if len(uris) > s.lim.BatchHeadMax {
		return fail(wire.CodeValidation, "%d uris is over batch_head_max %d", len(uris), s.lim.BatchHeadMax)
	}
	for i := range uris {
		if uris[i], err = normalizeURI(uris[i]); err != nil {
			return err
		}
	}
	resp := wire.HeadsResponse{Heads: make([]*wire.Head, len(uris))}
	err = s.st.db.View(func(tx *bolt.Tx) error {
		for i, u := range uris {
			rec, err := getDoc(tx, u)
			if err != nil {
				return err
			}
			if rec != nil && s.mayRead(caller, u) {
				resp.Heads[i] = &wire.Head{DocHash: rec.Hash}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// Cursors are opaque to clients (http §4.4): the prefix they belong to
// and the last key returned.
func encodeCursor(prefix, last string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("c1\x00" + prefix + "\x00" + last))
}

func decodeCursor(c, prefix string) (string, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", false
	}
	parts := strings.SplitN(string(b), "\x00", 3)
	if len(parts) != 3 || parts[0] != "c1" || parts[1] != prefix {
		return "", false
	}
	return parts[2], true
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, caller string) error {
	q := r.URL.Query()
	prefix := q.Get("prefix")
	limit := s.lim.ListPageMax
	if q.Has("limit") {
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n < 1 || n > s.lim.ListPageMax || strings.TrimLeft(q.Get("limit"), "0123456789") != "" {
			return fail(wire.CodeValidation, "limit %q is not an integer from 1 to %d", trim(q.Get("limit"), 20), s.lim.ListPageMax)
		}
		limit = n
	}
	after := ""
	if q.Has("cursor") {
		a, ok := decodeCursor(q.Get("cursor"), prefix)
		if !ok {
			return fail(wire.CodeValidation, "cursor is not one this endpoint returned for this prefix")
		}
		after = a
	}
	resp := wire.ListResponse{Documents: []wire.ListEntry{}}
	err := s.st.db.View(func(tx *bolt.Tx) error {
		c := bucket(tx, bucketDocs).Cursor()
		var k, v []byte
		if after != "" {
			k, v = c.Seek([]byte(after))
			if string(k) == after {
				k, v = c.Next()
			}
		} else {
			k, v = c.Seek([]byte(prefix))
		}
		for ; k != nil && strings.HasPrefix(string(k), prefix); k, v = c.Next() {
			if !s.mayRead(caller, string(k)) {
				continue
			}
			if len(resp.Documents) == limit {
				next := encodeCursor(prefix, resp.Documents[limit-1].FileURI)
				resp.NextCursor = &next
				return nil
			}
			var rec docRecord
			if err := json.Unmarshal(v, &rec); err != nil {
				return err
			}
			resp.Documents = append(resp.Documents, wire.ListEntry{FileURI: string(k), DocHash: rec.Hash})
		}
		return nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// loadSession returns the session sid if it is usable by caller (core
// §3.4): present, not expired, the caller's. Anything else is the one
// answer DPE_SESSION_EXPIRED.
func (s *Server) loadSession(tx *bolt.Tx, sid, caller string) (*sessionRecord, error) {
	var sess sessionRecord
	ok, err := getJSON(bucket(tx, bucketSessions), sid, &sess)
	if err != nil {
		return nil, err
	}
	if !ok || sess.Caller != caller || s.now().UnixNano() >= sess.Expires {
		return nil, fail(wire.CodeSessionExpired, "staging session is not usable")
	}
	if sess.Done == nil {
		sess.Done = map[string]int64{}
	}
	if sess.Partial == nil {
		sess.Partial = map[string]*partial{}
	}
	return &sess, nil
}

func (s *Server) renew(sess *sessionRecord) {
	sess.Expires = s.now().Add(time.Duration(s.lim.StagingTTLSeconds) * time.Second).UnixNano()
}

func expiresText(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339) }

// scopeOf is the dedup scope "document" (core §3.3): what uri's current
// state references.
func scopeOf(tx *bolt.Tx, uri string) (scope, *docRecord, error) {
	rec, err := getDoc(tx, uri)
	if err != nil || rec == nil {
		return scope{}, nil, err
	}
	return rec.Closure.set(), rec, nil
}

func (s *Server) negotiate(w http.ResponseWriter, r *http.Request, caller string) error {
	body, err := s.jsonBody(r)
	if err != nil {
		return err
	}
	m, err := envelope(body, "file_uri", "document", "pages")
	if err != nil {
		return err
	}
	rawURI, _, err := member[string](m, "file_uri", true, "a string")
	if err != nil {
		return err
	}
	uri, err := normalizeURI(rawURI)
	if err != nil {
		return err
	}
	if _, ok := m["document"]; !ok {
		return fail(wire.CodeValidation, "member document is required")
	}
	doc, _, attached, rawPages, err := documentAndPages(m)
	if err != nil {
		return err
	}
	if !s.mayWrite(caller, uri) {
		return fail(wire.CodeForbidden, "no write authorization for %s", uri)
	}
	for h, raw := range rawPages {
		if err := s.st.putObject(h, raw); err != nil {
			return err
		}
	}
	sid := newSessionID()
	var resp wire.NegotiateResponse
	err = s.st.db.Update(func(tx *bolt.Tx) error {
		s.sweep(tx)
		sc, _, err := scopeOf(tx, uri)
		if err != nil {
			return err
		}
		sess := &sessionRecord{URI: uri, Caller: caller, Done: map[string]int64{}}
		for h, raw := range rawPages {
			sess.Done[h] = int64(len(raw))
		}
		resp.MissingPages = []string{}
		resp.MissingContentHashes = []string{}
		seen := map[string]bool{}
		for _, ph := range doc.Pages {
			if seen[ph] {
				continue
			}
			seen[ph] = true
			p, ok := attached[ph]
			if !ok {
				if !sc[ph] {
					resp.MissingPages = append(resp.MissingPages, ph)
				}
				continue
			}
			for _, e := range p.Elements {
				if !seen[e] && !sc[e] {
					resp.MissingContentHashes = append(resp.MissingContentHashes, e)
				}
				seen[e] = true
			}
		}
		s.renew(sess)
		resp.StagingSession = wire.Session{ID: sid, ExpiresAt: expiresText(sess.Expires)}
		return putJSON(bucket(tx, bucketSessions), sid, sess)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// sweep removes a bounded number of expired sessions (and their partial
// bytes) on each negotiate, so staging does not grow without end.
func (s *Server) sweep(tx *bolt.Tx) {
	b := bucket(tx, bucketSessions)
	now := s.now().UnixNano()
	var dead []string
	c := b.Cursor()
	for k, v := c.First(); k != nil && len(dead) < 100; k, v = c.Next() {
		var sess sessionRecord
		if json.Unmarshal(v, &sess) == nil && sess.Expires <= now {
			dead = append(dead, string(k))
		}
	}
	for _, sid := range dead {
		_ = b.Delete([]byte(sid))
		_ = os.RemoveAll(filepath.Join(s.st.dir, "staging", sid))
	}
}

// missingBelow is the next layer's missing list of an object (http
// §4.6): a page's elements, an element's blob, outside scope ∪ session.
func missingBelow(sc scope, sess *sessionRecord, kind string, page *wire.Page, elem *wire.Element) wire.UploadResponse {
	var out wire.UploadResponse
	switch kind {
	case "pages":
		out.MissingContentHashes = []string{}
		seen := map[string]bool{}
		for _, e := range page.Elements {
			if !seen[e] && !sc[e] && !sess.has(e) {
				out.MissingContentHashes = append(out.MissingContentHashes, e)
			}
			seen[e] = true
		}
	case "objects":
		out.MissingBlobs = []string{}
		if elem != nil && elem.Blob != nil && !sc[*elem.Blob] && !sess.has(*elem.Blob) {
			out.MissingBlobs = append(out.MissingBlobs, *elem.Blob)
		}
	}
	return out
}
