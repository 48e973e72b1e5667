// Package remote is a DPE v1 remote (github.com/A2C-SMCP/dpe-protocol,
// spec/core.md and spec/bindings/http.md): an http.Handler over one store
// directory, documents and sessions in go.etcd.io/bbolt, page and element
// objects and blobs content-addressed in files beside it. The dedup scope
// is "document" (core §3.3); an opt-in read extension serves objects of
// documents the caller may read.
package remote

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Buckets of the database (store.db under the store directory).
const (
	bucketDocs     = "docs"     // normalized file_uri → docRecord
	bucketOwners   = "owners"   // hash \x00 file_uri → nothing: which documents reference a hash
	bucketBlobsOf  = "blobsof"  // content_hash → blob ref of an element that has one
	bucketSessions = "sessions" // session id → sessionRecord
)

func bucket(tx *bolt.Tx, name string) *bolt.Bucket { return tx.Bucket([]byte(name)) }

// docRecord is a document's current state: its hash, the document
// object as written and the closure of everything it references (the
// dedup scope "document" of core §3.3 and the read extension's bound).
type docRecord struct {
	Hash     string          `json:"hash"`
	Document json.RawMessage `json:"document"`
	Closure  closure         `json:"closure"`
	Elements int             `json:"elements"` // length of the expanded content hash sequence
}

type closure struct {
	Pages    []string `json:"pages"`
	Contents []string `json:"contents"`
	Blobs    []string `json:"blobs"`
}

func (c closure) all() []string {
	out := make([]string, 0, len(c.Pages)+len(c.Contents)+len(c.Blobs))
	out = append(out, c.Pages...)
	out = append(out, c.Contents...)
	return append(out, c.Blobs...)
}

// scope is a set view of a closure.
type scope map[string]bool

func (c closure) set() scope {
	s := make(scope, len(c.Pages)+len(c.Contents)+len(c.Blobs))
	for _, h := range c.all() {
		s[h] = true
	}
	return s
}

// sessionRecord is one staging session (core §3.4).
type sessionRecord struct {
	URI     string              `json:"uri"`
	Caller  string              `json:"caller"`
	Expires int64               `json:"expires"` // unix nanoseconds
	Done    map[string]int64    `json:"done"`    // hash → bytes received
	Partial map[string]*partial `json:"partial,omitempty"`
}

type partial struct {
	Total    int64 `json:"total"`
	Received int64 `json:"received"`
}

// store is the remote's state: bbolt for records (one transaction per
// commit, delete or move is what makes them atomic), files for the
// content-addressed objects and blobs.
type store struct {
	dir string
	db  *bolt.DB
}

func openStore(dir string) (*store, error) {
	for _, d := range []string{"objects", "blobs", "staging", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, fmt.Errorf("store %s: %w", dir, err)
		}
	}
	db, err := bolt.Open(filepath.Join(dir, "store.db"), 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if errors.Is(err, berrors.ErrTimeout) {
		// bbolt holds an exclusive lock on the file while it is open.
		return nil, fmt.Errorf("store %s is in use by another process (another remote serve?): its database stayed locked for 5s", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range []string{bucketDocs, bucketOwners, bucketBlobsOf, bucketSessions} {
			if _, err := tx.CreateBucketIfNotExists([]byte(b)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", dir, err)
	}
	return &store{dir: dir, db: db}, nil
}

func (s *store) close() error { return s.db.Close() }

// objectPath is where a page or element object (by its dpe1 hash) or a
// blob (by its sha256 ref) lives.
func (s *store) objectPath(hash string) string {
	kind, hexpart, _ := strings.Cut(hash, ":")
	sub := "objects"
	switch kind {
	case "sha256":
		sub = "blobs"
	case "pack":
		sub = "packs" // skeleton packs, by doc_hash (packName)
	}
	return filepath.Join(s.dir, sub, hexpart[:2], hexpart)
}

// putObject stores bytes under their hash, durably: written to a
// temporary file, synced, then renamed, so a file under a hash name is
// complete (a crash leaves at most a stray temporary).
func (s *store) putObject(hash string, data []byte) error {
	p, written, err := s.writeObject(hash, data)
	if err != nil || !written {
		return err
	}
	return syncFiles(s.dir, []string{p})
}

// writeObject is putObject without the sync, for a commit that writes
// many objects and syncs them at once (syncFiles) before its record
// switches. A file already there is kept only when it holds exactly
// data: one left by a crash before its sync may be cut short.
func (s *store) writeObject(hash string, data []byte) (path string, written bool, err error) {
	p := s.objectPath(hash)
	if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data) {
		return p, false, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", false, err
	}
	f, err := os.CreateTemp(filepath.Join(s.dir, "tmp"), "obj-*")
	if err != nil {
		return "", false, err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", false, err
	}
	if err := f.Close(); err != nil {
		return "", false, err
	}
	return p, true, os.Rename(tmp, p)
}

func (s *store) getObject(hash string, max int64) ([]byte, error) {
	f, err := os.Open(s.objectPath(hash))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("object %s over %d bytes", hash, max)
	}
	return b, nil
}

// partialPath holds the bytes received so far of a chunked upload.
func (s *store) partialPath(sid, hash string) string {
	return filepath.Join(s.dir, "staging", sid, strings.ReplaceAll(hash, ":", "_")+".part")
}

func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "st-" + hex.EncodeToString(b[:])
}

func getJSON(b *bolt.Bucket, key string, v any) (bool, error) {
	raw := b.Get([]byte(key))
	if raw == nil {
		return false, nil
	}
	return true, json.Unmarshal(raw, v)
}

func putJSON(b *bolt.Bucket, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put([]byte(key), raw)
}

func ownerKey(hash, uri string) []byte { return []byte(hash + "\x00" + uri) }

// setOwners moves the owner entries of uri from old to new closure.
func setOwners(tx *bolt.Tx, uri string, old, new []string) error {
	b := bucket(tx, bucketOwners)
	keep := make(map[string]bool, len(new))
	for _, h := range new {
		keep[h] = true
	}
	for _, h := range old {
		if !keep[h] {
			if err := b.Delete(ownerKey(h, uri)); err != nil {
				return err
			}
		}
	}
	for _, h := range new {
		if err := b.Put(ownerKey(h, uri), nil); err != nil {
			return err
		}
	}
	return nil
}

// owners lists the documents that reference hash (at most max).
func owners(tx *bolt.Tx, hash string, max int) []string {
	c := bucket(tx, bucketOwners).Cursor()
	prefix := []byte(hash + "\x00")
	var out []string
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(out) < max; k, _ = c.Next() {
		out = append(out, string(k[len(prefix):]))
	}
	return out
}
