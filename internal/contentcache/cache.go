// Package contentcache keeps the DPE v1 element objects this machine
// converted or pushed, content-addressed by their dpe1 content hash, so a
// browser of a remote without a read of content objects (core §3 has
// none) can still show what it knows. Nothing read from it is trusted:
// Get re-parses the object and recomputes its hash before returning it,
// and drops a file that no longer hashes to its name.
package contentcache

import (
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
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	err := safewrite.New(p, obj, 0o600)
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
	f, err := os.Open(p)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	obj, err := io.ReadAll(io.LimitReader(f, MaxObjectBytes+1))
	if err != nil || len(obj) > MaxObjectBytes {
		return nil, false
	}
	if _, h, v := wire.ParseElement(obj); v != nil || h != hash {
		_ = os.Remove(p)
		return nil, false
	}
	return obj, true
}
