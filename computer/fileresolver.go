package computer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/dpe-tui/dpe-tui/dpe/identity"
	"github.com/dpe-tui/dpe-tui/internal/safewrite"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// NewFileResolver returns the file resolver (dpe.md §部署示例, "Agent 与
// Computer 同机"): the Document JSON of an inline resource is written to dir
// under a content-addressed name (the hex of identity.Key: the dpe1
// doc_hash, or the sha256 of the bytes outside the contract; mode 0600) and
// answered as a file:// URI with size and etag. Identical documents share a
// file, so re-resolving costs nothing and never leaves stale copies behind.
// An external resource's URI is passed through as the MCP server gave it.
// The directory is created (0700) on first use.
func NewFileResolver(dir string) Resolver {
	return &fileResolver{dir: dir}
}

type fileResolver struct{ dir string }

func (f *fileResolver) Resolve(ctx context.Context, res protocol.A2CResource, contents Contents, _ Hint) (protocol.A2CResource, error) {
	if contents.Kind == ContentsExternal {
		return passThrough(res, contents.External), nil
	}
	if contents.Paged != nil {
		// This resolver stores the document whole.
		doc, err := contents.Inline(ctx)
		if err != nil {
			return protocol.A2CResource{}, fmt.Errorf("file resolver: %w", err)
		}
		contents.Document, contents.Paged = doc, nil
	}
	if contents.Kind != ContentsInline || len(contents.Document) == 0 {
		return protocol.A2CResource{}, fmt.Errorf("file resolver: unsupported contents kind %q", contents.Kind)
	}
	if err := ctx.Err(); err != nil {
		return protocol.A2CResource{}, err
	}
	abs, err := filepath.Abs(f.dir)
	if err != nil {
		return protocol.A2CResource{}, fmt.Errorf("file resolver: cache dir: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return protocol.A2CResource{}, fmt.Errorf("file resolver: cache dir: %w", err)
	}
	// One content key across the product: the document's identity
	// (identity.Key); an equivalent document with other bytes overwrites
	// the file, so the URI serves what this resolve was given.
	etag := identity.KeyHex(identity.Key(contents.Document))
	path := filepath.Join(abs, "dpe-"+etag+".json")
	if err := writeOnce(path, contents.Document); err != nil {
		return protocol.A2CResource{}, fmt.Errorf("file resolver: %w", err)
	}
	size := int64(len(contents.Document))
	return protocol.A2CResource{
		URI:         (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String(),
		Name:        res.Name,
		Description: res.Description,
		MimeType:    "application/json",
		Size:        &size,
		Annotations: res.Annotations,
		Meta:        &protocol.AccessMeta{ETag: etag},
	}, nil
}

// writeOnce writes data to path atomically unless the same bytes are
// already there (the name is the content key, which equivalent documents
// with other bytes share).
func writeOnce(path string, data []byte) error {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
			return nil
		}
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return safewrite.Replace(path, data, 0o600)
}

// passThrough trusts an external reference and hands it to the agent
// unchanged (dpe.md §实现自由度: "信任原 URI 直传 Agent").
func passThrough(res protocol.A2CResource, ref *protocol.DPEURIRef) protocol.A2CResource {
	out := protocol.A2CResource{
		URI: ref.URI, Name: res.Name, Description: res.Description,
		MimeType: ref.MimeType, Size: ref.Size, Annotations: res.Annotations,
	}
	if ref.ExpiresAt != "" || ref.ETag != "" {
		out.Meta = &protocol.AccessMeta{ExpiresAt: ref.ExpiresAt, ETag: ref.ETag}
	}
	return out
}
