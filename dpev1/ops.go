package dpev1

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

func decode[T any](op string, resp *response) (*T, error) {
	var v T
	if err := json.Unmarshal(resp.body, &v); err != nil {
		return nil, fmt.Errorf("%s: answer: %w", op, err)
	}
	return &v, nil
}

func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only wire types, which always marshal
	}
	return b
}

// Capabilities is GET capabilities (http §4.1).
func (c *Client) Capabilities(ctx context.Context) (*wire.Capabilities, error) {
	resp, err := c.do(ctx, request{op: "capabilities", method: http.MethodGet, path: "/capabilities"})
	if err != nil {
		return nil, err
	}
	caps, err := decode[wire.Capabilities]("capabilities", resp)
	if err != nil {
		return nil, err
	}
	if caps.Protocol != wire.Protocol {
		return nil, fmt.Errorf("capabilities: protocol %q is not %s", sanitize.Line(caps.Protocol), wire.Protocol)
	}
	for _, h := range caps.HashContracts {
		if h == wire.Contract {
			return caps, nil
		}
	}
	// core §3.1: no silent downgrade.
	return nil, fmt.Errorf("capabilities: %w: the remote does not accept %s", wire.CodeContractUnsupported, wire.Contract)
}

func uriQuery(uri string) url.Values { return url.Values{"uri": {uri}} }

// Head is HEAD documents?uri= (http §3.3): the document's head, or nil
// when there is none.
func (c *Client) Head(ctx context.Context, uri string) (*wire.Head, error) {
	resp, err := c.do(ctx, request{op: "head " + uri, method: http.MethodHead, path: "/documents", query: uriQuery(uri)})
	if errors.Is(err, wire.CodeNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	h := resp.header.Get(wire.HeaderDocHash)
	if !wire.ValidHash(h) {
		return nil, fmt.Errorf("head %s: %s %q is not a dpe1 hash", uri, wire.HeaderDocHash, sanitize.Line(h))
	}
	return &wire.Head{DocHash: h}, nil
}

// BatchHead is POST heads (http §4.2): one entry per URI, nil when absent.
func (c *Client) BatchHead(ctx context.Context, uris []string) ([]*wire.Head, error) {
	resp, err := c.do(ctx, request{op: "batch_head", method: http.MethodPost, path: "/heads", body: encode(wire.HeadsRequest{URIs: uris})})
	if err != nil {
		return nil, err
	}
	hr, err := decode[wire.HeadsResponse]("batch_head", resp)
	if err != nil {
		return nil, err
	}
	if len(hr.Heads) != len(uris) {
		return nil, fmt.Errorf("batch_head: %d answers for %d URIs", len(hr.Heads), len(uris))
	}
	for _, h := range hr.Heads {
		if h != nil && !wire.ValidHash(h.DocHash) {
			return nil, fmt.Errorf("batch_head: %q is not a dpe1 hash", sanitize.Line(h.DocHash))
		}
	}
	return hr.Heads, nil
}

// SkeletonResult is get_skeleton's answer. NotModified: the If-None-Match
// given still holds (304) and Skeleton is nil.
type SkeletonResult struct {
	DocHash     string
	NotModified bool
	Skeleton    *Skeleton
}

// Skeleton is a verified skeleton: the document and page objects decoded,
// every page hash and the doc hash recomputed and equal to what was sent.
type Skeleton struct {
	FileURI  string
	DocHash  string
	Document *wire.Document
	Pages    []*wire.Page
}

// GetSkeleton is GET documents?uri= (http §4.3). etag is a doc_hash this
// caller holds ("" none): when it is still current the answer is 304.
func (c *Client) GetSkeleton(ctx context.Context, uri, etag string) (*SkeletonResult, error) {
	rq := request{op: "get_skeleton " + uri, method: http.MethodGet, path: "/documents", query: uriQuery(uri), max: c.opt.MaxSkeletonBytes}
	if etag != "" {
		// The value is built from the doc_hash, never echoed from an ETag
		// (a proxy may have weakened it, http §3.1).
		rq.header = http.Header{"If-None-Match": {`"` + etag + `"`}}
	}
	resp, err := c.do(ctx, rq)
	if err != nil {
		return nil, err
	}
	if resp.status == http.StatusNotModified {
		return &SkeletonResult{DocHash: etag, NotModified: true}, nil
	}
	sk, err := DecodeSkeleton(resp.body)
	if err != nil {
		return nil, fmt.Errorf("get_skeleton %s: %w", uri, err)
	}
	if h := resp.header.Get(wire.HeaderDocHash); h != "" && h != sk.DocHash {
		return nil, fmt.Errorf("get_skeleton %s: %s %s differs from the body's %s", uri, wire.HeaderDocHash, sanitize.Line(h), sk.DocHash)
	}
	return &SkeletonResult{DocHash: sk.DocHash, Skeleton: sk}, nil
}

// DecodeSkeleton decodes and verifies a get_skeleton body: every object
// valid (core §2.8), the page objects those the document lists, in its
// order, and the recomputed doc_hash the one stated. The body is read in
// one pass: step 0 (I-JSON) is checked once for every byte of it — the
// text of the whole body here, duplicate keys of the envelope by its
// walk, and each object's inside by that object's own parse — rather than
// a whole-body check and then each object again.
func DecodeSkeleton(body []byte) (*Skeleton, error) {
	if v := wire.CheckText(body); v != nil {
		return nil, v
	}
	raw, err := splitSkeleton(body)
	if err != nil {
		return nil, err
	}
	doc, h, v := wire.ParseDocument(raw.Document)
	if v != nil {
		return nil, fmt.Errorf("skeleton document: %w", v)
	}
	if h != raw.DocHash {
		return nil, fmt.Errorf("skeleton: document hashes to %s, not the stated %s", h, sanitize.Line(trim(raw.DocHash, 80)))
	}
	if len(raw.Pages) != len(doc.Pages) {
		return nil, fmt.Errorf("skeleton: %d page objects for %d pages", len(raw.Pages), len(doc.Pages))
	}
	sk := &Skeleton{FileURI: raw.FileURI, DocHash: h, Document: doc, Pages: make([]*wire.Page, len(raw.Pages))}
	for i, pr := range raw.Pages {
		p, ph, v := wire.ParsePage(pr)
		if v != nil {
			return nil, fmt.Errorf("skeleton page %d: %w", i+1, v)
		}
		if ph != doc.Pages[i] {
			return nil, fmt.Errorf("skeleton page %d hashes to %s, not %s", i+1, ph, doc.Pages[i])
		}
		sk.Pages[i] = p
	}
	return sk, nil
}

// splitSkeleton walks a get_skeleton envelope: one object without a
// duplicate key, its pages an array of values kept raw (each parsed
// later as a page object), its document kept raw, every other member
// checked as I-JSON on its own.
func splitSkeleton(body []byte) (*wire.Skeleton, error) {
	bad := func(at string, v *wire.Violation) error {
		return &wire.Violation{Code: wire.CodeValidation, Msg: "skeleton: " + at + v.Msg}
	}
	members, v := wire.SplitObject(body)
	if v != nil {
		return nil, bad("", v)
	}
	var sk wire.Skeleton
	for _, m := range members {
		var err error
		switch m.Key {
		case "pages":
			if sk.Pages, v = wire.SplitArray(m.Value); v != nil {
				return nil, bad("pages: ", v)
			}
			continue
		case "document":
			sk.Document = m.Value // parsed, with its step 0, as the document object
			continue
		}
		if v := wire.CheckIJSON(m.Value); v != nil {
			return nil, v
		}
		switch m.Key {
		case "file_uri":
			err = json.Unmarshal(m.Value, &sk.FileURI)
		case "doc_hash":
			err = json.Unmarshal(m.Value, &sk.DocHash)
		}
		if err != nil {
			return nil, fmt.Errorf("skeleton %s: %w", sanitize.Line(trim(m.Key, 80)), err)
		}
	}
	return &sk, nil
}

func trim(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// ListOptions: Limit per page (0: the remote's list_page_max).
type ListOptions struct {
	Limit int
}

// maxListPages bounds one listing: a remote that hands out cursors
// forever must not keep the caller paging forever.
const maxListPages = 100000

// List is GET documents?prefix= (http §4.4) as an iterator over every
// document under prefix, paging with cursors behind the scenes. A failed
// page ends the iteration with its error.
func (c *Client) List(ctx context.Context, prefix string, opt ListOptions) iter.Seq2[wire.ListEntry, error] {
	return func(yield func(wire.ListEntry, error) bool) {
		cursor := ""
		seen := map[string]bool{}
		for page := 0; ; page++ {
			if page >= maxListPages {
				yield(wire.ListEntry{}, fmt.Errorf("list: more than %d pages", maxListPages))
				return
			}
			q := url.Values{"prefix": {prefix}}
			if opt.Limit > 0 {
				q.Set("limit", strconv.Itoa(opt.Limit))
			}
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			resp, err := c.do(ctx, request{op: "list", method: http.MethodGet, path: "/documents", query: q})
			if err != nil {
				yield(wire.ListEntry{}, err)
				return
			}
			lr, err := decode[wire.ListResponse]("list", resp)
			if err != nil {
				yield(wire.ListEntry{}, err)
				return
			}
			for _, d := range lr.Documents {
				if !wire.ValidHash(d.DocHash) {
					yield(wire.ListEntry{}, fmt.Errorf("list: %q is not a dpe1 hash", sanitize.Line(trim(d.DocHash, 80))))
					return
				}
				if !yield(d, nil) {
					return
				}
			}
			if lr.NextCursor == nil {
				return
			}
			if seen[*lr.NextCursor] || len(lr.Documents) == 0 {
				yield(wire.ListEntry{}, errors.New("list: the remote repeats a cursor"))
				return
			}
			cursor = *lr.NextCursor
			seen[cursor] = true
		}
	}
}

// Negotiate is POST negotiate (http §4.5).
func (c *Client) Negotiate(ctx context.Context, req *wire.NegotiateRequest) (*wire.NegotiateResponse, error) {
	resp, err := c.do(ctx, request{op: "negotiate " + req.FileURI, method: http.MethodPost, path: "/negotiate", body: encode(req)})
	if err != nil {
		return nil, err
	}
	return decode[wire.NegotiateResponse]("negotiate", resp)
}

// Precondition is a commit's or delete's CAS condition (core §5.1): one
// of BaseHash (If-Match), IfAbsent (If-None-Match: *), Force.
type Precondition struct {
	BaseHash string
	IfAbsent bool
	Force    bool
}

func (p Precondition) header() http.Header {
	h := http.Header{}
	switch {
	case p.BaseHash != "":
		h.Set("If-Match", `"`+p.BaseHash+`"`)
	case p.IfAbsent:
		h.Set("If-None-Match", "*")
	}
	return h
}

// Commit is PUT documents?uri= (http §4.8). A 412 with neither problem
// body nor DPE-Error-Code (a gateway judged the header) is decided by a
// head, as http §3.2 says.
func (c *Client) Commit(ctx context.Context, uri string, req *wire.CommitRequest, pre Precondition) (*wire.CommitResponse, error) {
	r := *req
	r.Force = pre.Force
	rq := request{op: "commit " + uri, method: http.MethodPut, path: "/documents", query: uriQuery(uri), body: encode(&r), header: pre.header()}
	for try := 0; ; try++ {
		resp, err := c.do(ctx, rq)
		var he *HTTPError
		if errors.As(err, &he) && he.Status == http.StatusPreconditionFailed && !pre.Force && try == 0 {
			// http §3.2: decide by the document's head.
			target, herr := docHashOf(req.Document)
			if herr != nil {
				return nil, err
			}
			h, herr := c.Head(ctx, uri)
			if herr != nil {
				return nil, herr
			}
			switch {
			case h != nil && h.DocHash == target:
				return &wire.CommitResponse{Status: wire.StatusUnchanged, DocHash: target}, nil
			case pre.BaseHash != "" && h == nil:
				return nil, fmt.Errorf("commit %s: %w", uri, wire.CodeNotFound)
			case pre.BaseHash != "":
				return nil, fmt.Errorf("commit %s: %w", uri, wire.CodePreconditionFailed)
			case pre.IfAbsent && h != nil:
				return nil, fmt.Errorf("commit %s: %w", uri, wire.CodeAlreadyExists)
			}
			continue // If-None-Match held: the gateway misjudged; once more
		}
		if err != nil {
			return nil, err
		}
		return decode[wire.CommitResponse]("commit", resp)
	}
}

func docHashOf(doc json.RawMessage) (string, error) {
	_, h, v := wire.ParseDocument(doc)
	if v != nil {
		return "", v
	}
	return h, nil
}

// Delete is DELETE documents?uri= with If-Match (http §4.9). A retry that
// finds the document gone has done what was asked (core §5.2).
func (c *Client) Delete(ctx context.Context, uri, baseHash string) error {
	resp, err := c.do(ctx, request{op: "delete " + uri, method: http.MethodDelete, path: "/documents", query: uriQuery(uri),
		header: Precondition{BaseHash: baseHash}.header()})
	if errors.Is(err, wire.CodeNotFound) && resp != nil && resp.retried {
		return nil
	}
	return err
}

// MoveResult is a successful move: the target's doc_hash and where it is.
type MoveResult struct {
	DocHash  string
	Location string
}

// Move is POST move (http §4.9).
func (c *Client) Move(ctx context.Context, from, to, baseHash string) (*MoveResult, error) {
	resp, err := c.do(ctx, request{op: "move " + from, method: http.MethodPost, path: "/move",
		body: encode(wire.MoveRequest{FromURI: from, ToURI: to, BaseHash: baseHash})})
	if err != nil {
		return nil, err
	}
	mr, err := decode[wire.MoveResponse]("move", resp)
	if err != nil {
		return nil, err
	}
	return &MoveResult{DocHash: mr.DocHash, Location: resp.header.Get("Content-Location")}, nil
}

// ReadObject is the read extension GET objects/{hash} (advertised as
// wire.FeatureReadObjects): the bytes, verified against hash (a dpe1
// object is parsed and rehashed, a blob's sha256 recomputed).
func (c *Client) ReadObject(ctx context.Context, hash string) ([]byte, error) {
	op := "read " + hash
	resp, err := c.do(ctx, request{op: op, method: http.MethodGet, path: "/objects/" + hash})
	if err != nil {
		return nil, err
	}
	if wire.ValidBlobRef(hash) {
		sum := sha256.Sum256(resp.body)
		if "sha256:"+hex.EncodeToString(sum[:]) != hash {
			return nil, fmt.Errorf("%s: the bytes do not hash to it", op)
		}
		return resp.body, nil
	}
	if v := wire.CheckIJSON(resp.body); v != nil {
		return nil, fmt.Errorf("%s: %w", op, v)
	}
	_, h, v := wire.ParseElement(resp.body)
	if v != nil {
		if _, h, v = wire.ParsePage(resp.body); v != nil {
			return nil, fmt.Errorf("%s: %w", op, v)
		}
	}
	if h != hash {
		return nil, fmt.Errorf("%s: the object hashes to %s", op, h)
	}
	return resp.body, nil
}
