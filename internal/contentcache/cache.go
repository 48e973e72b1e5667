// Package contentcache keeps the DPE v1 element objects this machine
// converted or pushed, content-addressed by their dpe1 content hash, and
// the blobs their Image elements name (by sha256 reference), so a
// browser of a remote without a read of content objects (core §3 has
// none) can still show what it knows. Nothing read from it is trusted:
// Get re-parses the object and recomputes its hash before returning it,
// and drops a file that no longer hashes to its name; GetBlob recomputes
// the blob's sha256 the same way.
package contentcache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dpe-tui/dpe-tui/dpev1/wire"
	"github.com/dpe-tui/dpe-tui/internal/safewrite"
)

// MaxObjectBytes bounds one cached object (a larger one is not kept and
// not read).
const MaxObjectBytes = 4 << 20

// MaxBlobBytes bounds one cached blob: the image budget of the renderer
// (render.Limits.MaxImageBytes' default), beyond which it is not shown.
const MaxBlobBytes = 32 << 20

// Cache is a directory of objects, one file per content hash.
type Cache struct{ dir string }

// Open uses dir (created when missing).
func Open(dir string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("content cache: %w", err)
	}
	return &Cache{dir: dir}, nil
}

// Default is the cache under the user's cache directory.
func Default() (*Cache, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return nil, fmt.Errorf("content cache: %w", err)
	}
	return Open(filepath.Join(base, "dpe-tui", "objects"))
}

// path is where hash lives; false for anything but a dpe1 hash (a name
// from a peer never becomes a path of its own).
func (c *Cache) path(hash string) (string, bool) {
	if !wire.ValidHash(hash) {
		return "", false
	}
	hex := strings.TrimPrefix(hash, "dpe1:")
	return filepath.Join(c.dir, hex[:2], hex[2:]), true
}

// blobPath is where the blob of ref lives, beside the objects (a blob
// ref is "sha256:<hex>", never a path of its own).
func (c *Cache) blobPath(ref string) (string, bool) {
	if !wire.ValidBlobRef(ref) {
		return "", false
	}
	hex := strings.TrimPrefix(ref, "sha256:")
	return filepath.Join(c.dir, "blobs", hex[:2], hex[2:]), true
}

// Put keeps an element object under the hash it has. An object already
// there is left as it is.
func (c *Cache) Put(obj []byte) error {
	if len(obj) > MaxObjectBytes {
		return nil
	}
	_, h, v := wire.ParseElement(obj)
	if v != nil {
		return v
	}
	p, _ := c.path(h)
	return c.keep(p, obj)
}

// PutBlob keeps a blob under its reference; bytes that do not hash to
// ref are refused.
func (c *Cache) PutBlob(ref string, b []byte) error {
	p, ok := c.blobPath(ref)
	if !ok {
		return fmt.Errorf("content cache: %q is not a blob reference", ref)
	}
	if len(b) > MaxBlobBytes {
		return nil
	}
	if blobRef(b) != ref {
		return fmt.Errorf("content cache: the bytes do not hash to %s", ref)
	}
	return c.keep(p, b)
}

func blobRef(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// keep writes b at p unless a file is there already.
func (c *Cache) keep(p string, b []byte) error {
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	err := safewrite.New(p, b, 0o600)
	if errors.Is(err, safewrite.ErrRefused) {
		return nil // another process kept it meanwhile
	}
	return err
}

// Get is the element object of hash, verified: ok false when it is not
// kept, too big, or no longer hashes to hash (the file is then removed).
func (c *Cache) Get(hash string) ([]byte, bool) {
	p, ok := c.path(hash)
	if !ok {
		return nil, false
	}
	obj, ok := readAtMost(p, MaxObjectBytes)
	if !ok {
		return nil, false
	}
	if _, h, v := wire.ParseElement(obj); v != nil || h != hash {
		_ = os.Remove(p)
		return nil, false
	}
	return obj, true
}

// GetBlob is the blob of ref, verified: ok false when it is not kept, too
// big, or no longer hashes to ref (the file is then removed).
func (c *Cache) GetBlob(ref string) ([]byte, bool) {
	p, ok := c.blobPath(ref)
	if !ok {
		return nil, false
	}
	b, ok := readAtMost(p, MaxBlobBytes)
	if !ok {
		return nil, false
	}
	if blobRef(b) != ref {
		_ = os.Remove(p)
		return nil, false
	}
	return b, true
}

// readAtMost is the file at p when it holds at most limit bytes.
func readAtMost(p string, limit int64) ([]byte, bool) {
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil || int64(len(b)) > limit {
		return nil, false
	}
	return b, true
}
