package computer

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/s3utils"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/dpe/identity"
	dpes3 "github.com/dpe-tui/dpe-tui/dpe/s3"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// Bounds of S3ResolverOptions.
const (
	// MaxS3Expiry is the longest presign S3 (SigV4) accepts.
	MaxS3Expiry = 7 * 24 * time.Hour
	// DefaultS3Entries bounds the resolver's local map of uploaded
	// documents; a document dropped from it is found again by a stat.
	DefaultS3Entries = 4096
	// s3MetaSHA is the user metadata (x-amz-meta-dpe-sha256) every object
	// carries: the sha256 of the document bytes it was cut from, so a stat
	// tells "these very bytes are already there" across processes.
	s3MetaSHA = "Dpe-Sha256"
)

// S3ResolverOptions configure NewS3Resolver. Credentials are not options:
// they come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (AWS_REGION,
// AWS_SESSION_TOKEN) through Getenv, so they never appear in flags or
// process listings.
type S3ResolverOptions struct {
	Endpoint string // http(s)://host[:port] of the object store
	Bucket   string // must exist
	Prefix   string // prepended to every object key, e.g. "dpe/"
	// Expiry of a presigned URL; default DefaultResolverTTL, at most
	// MaxS3Expiry, at least a second.
	Expiry time.Duration
	// ManifestThreshold: a Document JSON larger than this is uploaded in
	// manifest mode, one object per page (dpe.md §Page 对象, 模式 B), like
	// the http resolver. Default DefaultManifestThreshold; negative
	// disables manifest mode.
	ManifestThreshold int64
	// MaxEntries bounds the local map of uploaded documents (default
	// DefaultS3Entries).
	MaxEntries int
	// Getenv reads the AWS variables; nil means os.Getenv.
	Getenv func(string) string
	// Transport carries the S3 requests (tests count PUTs through it);
	// nil means a clone of http.DefaultTransport.
	Transport http.RoundTripper
	// Logger; nil discards.
	Logger *slog.Logger
}

// S3Resolver uploads resolved documents to an S3 bucket and answers
// presigned GET URLs (dpe.md §部署示例: "MinIO + 预签名 URL"):
//
//	{prefix}{id}.json                 the document (below the threshold)
//	{prefix}{id}/p/{i}.json           page i, in manifest mode
//	{prefix}{id}/manifest.json        the manifest: the document without
//	                                  its elements, each page's uri a
//	                                  presigned URL of its page object
//
// id is the hex of identity.Key, the product's one content key. An
// unchanged document is not uploaded again: a stat of the object and its
// dpe-sha256 metadata (for manifest pages: the local map, or else that
// stat) says its bytes are there. An
// equivalent document with other bytes (same key) is uploaded over the
// old one, so each resolve serves the bytes it was given.
//
// Presigned page URLs live inside the manifest object, so the manifest is
// rewritten when less than half of Expiry is left on its page URLs; a
// resolve in between reuses it, and its URL and _meta.expires_at end when
// the page URLs do. _meta.etag names the content: the ETag the store gave
// a whole document's object, and for a manifest the document's sha256 —
// not the manifest object's ETag, which changes with every re-presign and
// would tell the agent the document changed when only its URLs did.
type S3Resolver struct {
	opt S3ResolverOptions
	log *slog.Logger
	c   *minio.Client

	mu      sync.Mutex
	entries map[string]*list.Element // id → *s3Entry, in lru
	lru     *list.List
}

// s3Entry is what the resolver knows about one document id. Its mutex
// serialises uploads of that id (two agents opening the same new document
// upload it once).
type s3Entry struct {
	id string
	mu sync.Mutex
	// sha is the sha256 of the uploaded bytes; "" until an upload or stat
	// confirmed them.
	sha string
	// Manifest mode: the manifest object, the expiry of the page URLs in
	// it, and its ETag.
	manifest    bool
	manifestExp time.Time
	manifestTag string
}

// NewS3Resolver checks the configuration and that the bucket exists.
func NewS3Resolver(ctx context.Context, opt S3ResolverOptions) (*S3Resolver, error) {
	if opt.Bucket == "" {
		return nil, errors.New("s3 resolver: no bucket (--s3-bucket)")
	}
	if err := s3utils.CheckValidBucketName(opt.Bucket); err != nil {
		return nil, fmt.Errorf("s3 resolver: bucket %q: %w", opt.Bucket, err)
	}
	if opt.Prefix != "" {
		if err := s3utils.CheckValidObjectNamePrefix(opt.Prefix); err != nil {
			return nil, fmt.Errorf("s3 resolver: prefix %q: %w", opt.Prefix, err)
		}
	}
	if opt.Expiry == 0 {
		opt.Expiry = DefaultResolverTTL
	}
	if opt.Expiry < time.Second || opt.Expiry > MaxS3Expiry {
		return nil, fmt.Errorf("s3 resolver: expiry %v out of range (1s to %v)", opt.Expiry, MaxS3Expiry)
	}
	opt.Expiry = opt.Expiry.Truncate(time.Second) // presigns count whole seconds
	if opt.ManifestThreshold == 0 {
		opt.ManifestThreshold = DefaultManifestThreshold
	}
	if opt.MaxEntries <= 0 {
		opt.MaxEntries = DefaultS3Entries
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opt.Endpoint == "" {
		return nil, errors.New("s3 resolver: no endpoint (--s3-endpoint)")
	}
	c, err := dpes3.NewClient(dpes3.Config{Endpoint: opt.Endpoint, Getenv: opt.Getenv, Transport: opt.Transport, For: "s3 resolver"})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	ok, err := c.BucketExists(ctx, opt.Bucket)
	if err != nil {
		return nil, fmt.Errorf("s3 resolver: bucket %s at %s: %w", opt.Bucket, dpe.RedactURI(opt.Endpoint), err)
	}
	if !ok {
		return nil, fmt.Errorf("s3 resolver: bucket %s does not exist at %s", opt.Bucket, dpe.RedactURI(opt.Endpoint))
	}
	return &S3Resolver{opt: opt, log: log, c: c, entries: map[string]*list.Element{}, lru: list.New()}, nil
}

// DocKey is the object key of a document below the threshold, PageKey of
// page i in manifest mode and ManifestKey of its manifest (id: the hex of
// identity.Key).
func (s *S3Resolver) DocKey(id string) string      { return s.opt.Prefix + id + ".json" }
func (s *S3Resolver) ManifestKey(id string) string { return s.opt.Prefix + id + "/manifest.json" }
func (s *S3Resolver) PageKey(id string, i int) string {
	return s.opt.Prefix + id + "/p/" + strconv.Itoa(i) + ".json"
}

// Resolve uploads an inline document (unless its bytes are there already)
// and answers a presigned URL for it. An external reference is passed
// through unchanged.
func (s *S3Resolver) Resolve(ctx context.Context, res protocol.A2CResource, contents Contents, _ Hint) (protocol.A2CResource, error) {
	if contents.Kind == ContentsExternal {
		return passThrough(res, contents.External), nil
	}
	if contents.Paged != nil {
		// This resolver stores the document whole.
		doc, err := contents.Inline(ctx)
		if err != nil {
			return protocol.A2CResource{}, fmt.Errorf("s3 resolver: %w", err)
		}
		contents.Document, contents.Paged = doc, nil
	}
	if contents.Kind != ContentsInline || len(contents.Document) == 0 {
		return protocol.A2CResource{}, fmt.Errorf("s3 resolver: unsupported contents kind %q", contents.Kind)
	}
	if err := ctx.Err(); err != nil {
		return protocol.A2CResource{}, err
	}
	doc := contents.Document
	id := identity.KeyHex(identity.Key(doc))
	sum := sha256.Sum256(doc)
	sha := hex.EncodeToString(sum[:])
	e := s.entry(id)
	e.mu.Lock()
	defer e.mu.Unlock()

	var (
		key, etag string
		expiry    = s.opt.Expiry
		size      int64
	)
	if s.opt.ManifestThreshold > 0 && int64(len(doc)) > s.opt.ManifestThreshold {
		var err error
		if key, etag, expiry, size, err = s.manifest(ctx, e, doc, sha); err != nil {
			return protocol.A2CResource{}, fmt.Errorf("s3 resolver: %w", err)
		}
	} else {
		// Always a stat (one HEAD): an object removed behind our back,
		// say by a lifecycle rule, is uploaded again instead of being
		// presigned into a 404.
		key = s.DocKey(id)
		tag, err := s.ensure(ctx, key, doc, sha)
		if err != nil {
			return protocol.A2CResource{}, fmt.Errorf("s3 resolver: %w", err)
		}
		e.sha, e.manifest = sha, false
		etag, size = tag, int64(len(doc))
	}
	signed := time.Now()
	u, err := s.c.PresignedGetObject(ctx, s.opt.Bucket, key, expiry, nil)
	if err != nil {
		return protocol.A2CResource{}, fmt.Errorf("s3 resolver: presign %s: %w", key, err)
	}
	return protocol.A2CResource{
		URI:         u.String(),
		Name:        res.Name,
		Description: res.Description,
		MimeType:    "application/json",
		Size:        &size,
		Annotations: res.Annotations,
		Meta: &protocol.AccessMeta{
			// Rounded down: the store counts from the signing second.
			ExpiresAt: signed.Add(expiry).Truncate(time.Second).UTC().Format(time.RFC3339),
			ETag:      etag,
		},
	}, nil
}

// entry returns id's entry, creating it and evicting the least recently
// used beyond MaxEntries (its objects stay in the bucket).
func (s *S3Resolver) entry(id string) *s3Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.entries[id]; ok {
		s.lru.MoveToFront(el)
		return el.Value.(*s3Entry)
	}
	e := &s3Entry{id: id}
	s.entries[id] = s.lru.PushFront(e)
	for s.lru.Len() > s.opt.MaxEntries {
		old := s.lru.Back()
		s.lru.Remove(old)
		delete(s.entries, old.Value.(*s3Entry).id)
	}
	return e
}

// ensure makes key hold data: a stat whose dpe-sha256 matches sha spares
// the upload. It returns the object's ETag.
func (s *S3Resolver) ensure(ctx context.Context, key string, data []byte, sha string) (string, error) {
	if st, err := s.c.StatObject(ctx, s.opt.Bucket, key, minio.StatObjectOptions{}); err == nil {
		if metaSHA(st.UserMetadata) == sha && st.Size == int64(len(data)) {
			return st.ETag, nil
		}
	} else if minio.ToErrorResponse(err).StatusCode != http.StatusNotFound {
		return "", fmt.Errorf("stat %s: %w", key, err)
	}
	return s.put(ctx, key, data, sha, "")
}

func (s *S3Resolver) put(ctx context.Context, key string, data []byte, sha, cacheControl string) (string, error) {
	info, err := s.c.PutObject(ctx, s.opt.Bucket, key, bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{
		ContentType:  "application/json",
		CacheControl: cacheControl,
		UserMetadata: map[string]string{s3MetaSHA: sha},
	})
	if err != nil {
		return "", fmt.Errorf("upload %s: %w", key, err)
	}
	s.log.Debug("s3 resolver uploaded", "key", key, "bytes", len(data))
	return info.ETag, nil
}

func metaSHA(m map[string]string) string {
	for k, v := range m {
		if strings.EqualFold(k, s3MetaSHA) {
			return v
		}
	}
	return ""
}

// manifest makes the page objects and a manifest whose page URLs have at
// least half of Expiry left, and returns the manifest's key, the
// document's ETag (its sha256, the same for every presign of the same
// bytes), the lifetime left for its own URL and its size.
func (s *S3Resolver) manifest(ctx context.Context, e *s3Entry, doc []byte, sha string) (key, etag string, left time.Duration, size int64, err error) {
	key = s.ManifestKey(e.id)
	now := time.Now()
	if e.manifest && e.sha == sha {
		if left = e.manifestExp.Sub(now).Truncate(time.Second); left >= s.opt.Expiry/2 && left >= time.Second {
			st, err := s.c.StatObject(ctx, s.opt.Bucket, key, minio.StatObjectOptions{})
			if err == nil && st.ETag == e.manifestTag {
				return key, sha, left, st.Size, nil
			}
			// Overwritten or deleted behind our back: write it again.
		}
	}
	d := &storedDoc{id: e.id, raw: doc}
	if err := splitManifest(d); err != nil {
		return "", "", 0, 0, fmt.Errorf("manifest: %w", err)
	}
	// Pages first, manifest last: a manifest only ever names pages that
	// are there. A page whose bytes are there already (same dpe-sha256)
	// is not uploaded again.
	for i, p := range d.pages {
		if d.entries[i].keep != nil {
			continue
		}
		if e.sha != sha {
			if _, err := s.ensure(ctx, s.PageKey(e.id, i), p, sha); err != nil {
				return "", "", 0, 0, err
			}
		}
	}
	e.sha, e.manifest = sha, true
	exp := now.Add(s.opt.Expiry)
	body, err := manifestJSON(d, func(i int) (string, error) {
		u, err := s.c.PresignedGetObject(ctx, s.opt.Bucket, s.PageKey(e.id, i), s.opt.Expiry, nil)
		if err != nil {
			return "", fmt.Errorf("presign page %d: %w", i+1, err)
		}
		return u.String(), nil
	})
	if err != nil {
		return "", "", 0, 0, fmt.Errorf("manifest: %w", err)
	}
	tag, err := s.put(ctx, key, body, sha, "private, no-store")
	if err != nil {
		return "", "", 0, 0, err
	}
	e.manifestExp, e.manifestTag = exp, tag
	return key, sha, s.opt.Expiry, int64(len(body)), nil
}
