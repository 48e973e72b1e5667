package dpe

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestOpen_FileURIOnlyFromOwnComputersOrWithAllowFile(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "doc.dpe.json")
	if err := os.WriteFile(doc, []byte(`{"doc_ref":"d","page_count":1,"pages":[{"page_index":0,"elements":[]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	uri := fileURI(doc)
	for _, tc := range []struct {
		name    string
		own     bool
		fetcher *Fetcher
		wantErr string
	}{
		{"external computer refused", false, &Fetcher{}, "refused " + uri + " from computer 0evil: file:// access URIs are accepted only from computers dpe-tui started, or with --allow-file-uri"},
		{"own computer accepted", true, &Fetcher{}, ""},
		{"own computer outside ROOT accepted", true, &Fetcher{AllowFile: true, FileRoot: t.TempDir()}, ""},
		{"--allow-file-uri accepts any computer", false, &Fetcher{AllowFile: true}, ""},
		{"--allow-file-uri=ROOT confines", false, &Fetcher{AllowFile: true, FileRoot: t.TempDir()}, "outside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resolves := 0
			o := &Opener{Fetcher: tc.fetcher, Resolver: ResolverFunc(func(context.Context, string) (Access, error) {
				resolves++
				return Access{URI: uri, Size: -1, Computer: "0evil", OwnComputer: tc.own}, nil
			})}
			_, err := o.Open(context.Background(), "dpe://org.x.docs/d")
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrFileRefused) {
				t.Fatalf("err = %v, want %q", err, tc.wantErr)
			}
			if resolves != 1 {
				t.Errorf("a refusal by policy was re-resolved (%d resolves)", resolves)
			}
		})
	}
}

func TestFetch_RegularFilesOnly(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	f := &Fetcher{AllowFile: true}
	for uri, want := range map[string]string{
		fileURI(fifo):                 "not a regular file (a FIFO)",
		fileURI(link):                 "not a regular file (a FIFO)",
		"file:///dev/null":            "not a regular file (/dev is a pseudo-filesystem)",
		"file:///proc/self/status":    "not a regular file (/proc is a pseudo-filesystem)",
		"file:///sys/kernel/hostname": "not a regular file (/sys is a pseudo-filesystem)",
	} {
		_, err := f.Fetch(context.Background(), uri)
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrFileRefused) {
			t.Errorf("%s: err = %v, want %q", uri, err, want)
		}
	}
}
