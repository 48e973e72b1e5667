package library

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
)

// isDPE reports whether name is a hand-written DPE Document (served as is).
func isDPE(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".dpe.json") }

// isDPEFile reports whether a file is served as the DPE document it is:
// a *.dpe.json by its name, any other *.json when get reads it as one
// (dpe.Decode, the decoder get uses, accepts it: a convert output, say).
// Other JSON is converted like any source file (shown as code).
func isDPEFile(name string, data []byte) bool {
	if isDPE(name) {
		return true
	}
	if !strings.HasSuffix(strings.ToLower(name), ".json") {
		return false
	}
	_, err := dpe.Decode(data, dpe.DefaultLimits())
	return err == nil
}

// docInfo is what resources/list needs about a document; it comes from the
// same conversion as the Document JSON so the two cannot drift (dpe.md
// §Document JSON: values should match Resource._meta).
type docInfo struct {
	Title, Summary, FileType, LastModified string
	Keywords                               []string
	PageCount                              int
	// Err is why the file cannot be converted: the file is listed with
	// it (description and _meta.error) and reading it fails with it.
	Err string
}

// converted is one conversion result.
type converted struct {
	JSON []byte
	Info docInfo
}

// sourceRef names a file to convert: where it lives and how it is served.
type sourceRef struct {
	files   *folder // for images next to Markdown; may be nil
	path    string  // slash path inside files (also the doc_ref)
	uri     string  // dpe:// URI
	fileURI string  // file:// URI of the source
	modTime time.Time
}

// source is the convert.Source for ref's bytes. The embedded corpus has no
// mod times: a date derived from the path keeps listings and goldens
// deterministic.
func (ref sourceRef) source(data []byte) convert.Source {
	src := convert.BytesSource(ref.path, data)
	src.DocRef, src.URI, src.FileURI, src.ModTime = docRefOf(ref), ref.uri, ref.fileURI, ref.modTime
	if src.ModTime.IsZero() {
		src.ModTime, _ = time.Parse(time.RFC3339, derivedDate(ref.path))
	}
	return src
}

// assets is how a document's images are read: through the folder (its
// os.Root for a directory), regular files only, logged when refused.
func (ref sourceRef) assets(ctx context.Context) context.Context {
	if ref.files == nil {
		return ctx
	}
	files := ref.files
	return convert.WithAssets(ctx, func(p string, limit int64) ([]byte, error) {
		data, _, err := files.read(p, limit)
		if errors.Is(err, errOutside) || errors.Is(err, errNotRegular) {
			files.warn("library: image not embedded", "path", p, "document", ref.path, "reason", err.Error())
		}
		return data, err
	})
}

// convertFile converts one file through conv (every format but .dpe.json,
// which is checked and kept as is). Errors are one line naming the file.
func convertFile(ctx context.Context, conv *convert.Converter, ref sourceRef, data []byte) (c *converted, err error) {
	// One file's failure is that file's error: a panic here would end
	// serve, mcp or the Finder's background index with every document.
	defer recoverAsError(ref.path, &err)
	if isDPEFile(ref.path, data) {
		return checkDPE(ref.path, data)
	}
	out, err := conv.ConvertJSON(ref.assets(ctx), ref.source(data))
	if err != nil {
		return nil, err
	}
	checked, err := checkDPE(ref.path, out)
	if err != nil {
		return nil, err
	}
	return &converted{JSON: out, Info: checked.Info}, nil
}

// recoverAsError turns a panic into *err, naming the file.
func recoverAsError(path string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s: internal error in the converter: %v", path, r)
	}
}

// probeFile is what the listing shows before a file is read: a .dpe.json
// is checked whole, other files are probed (metadata and page count, PDF
// engine not started).
func probeFile(ctx context.Context, conv *convert.Converter, ref sourceRef, data []byte) (info docInfo, err error) {
	defer recoverAsError(ref.path, &err)
	if isDPEFile(ref.path, data) {
		c, err := checkDPE(ref.path, data)
		if err != nil {
			return docInfo{}, err
		}
		return c.Info, nil
	}
	p, err := conv.Probe(ref.assets(ctx), ref.source(data))
	if err != nil {
		return docInfo{}, err
	}
	return docInfo{Title: p.Title, Summary: p.Summary, FileType: p.FileType, LastModified: p.LastModified,
		Keywords: p.Keywords, PageCount: p.PageCount}, nil
}

// checkDPE validates a hand-written Document JSON minimally (a JSON object
// with a non-empty pages array, dpe.md §Document JSON) and keeps its bytes.
// The listing metadata is read leniently: a wrongly typed field is ignored,
// not fatal.
func checkDPE(name string, data []byte) (*converted, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n\xef\xbb\xbf")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, fmt.Errorf("convert %s: Document JSON must be an object", name)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &top); err != nil {
		return nil, fmt.Errorf("convert %s: invalid JSON: %w", name, err)
	}
	var pages []json.RawMessage
	if err := json.Unmarshal(top["pages"], &pages); err != nil || pages == nil {
		return nil, fmt.Errorf("convert %s: Document JSON needs a pages array", name)
	}
	if len(pages) == 0 {
		return nil, fmt.Errorf("convert %s: pages is empty (page_count must be ≥ 1)", name)
	}
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(top[k], &s)
		return s
	}
	info := docInfo{
		Title:        str("title"),
		Summary:      str("summary"),
		FileType:     strings.ToLower(str("file_type")),
		LastModified: str("last_modified"),
		PageCount:    len(pages),
	}
	var kws []any
	_ = json.Unmarshal(top["keywords"], &kws)
	for _, k := range kws {
		if s, ok := k.(string); ok {
			info.Keywords = append(info.Keywords, s)
		}
	}
	if info.FileType == "" {
		info.FileType = "dpe"
	}
	if info.Title == "" {
		info.Title = strings.TrimSuffix(path.Base(name), ".dpe.json")
	}
	return &converted{JSON: trimmed, Info: info}, nil
}

// docRefOf is the decoded path of the dpe URI, or the file path.
func docRefOf(ref sourceRef) string {
	if ref.uri != "" {
		if u, err := url.Parse(ref.uri); err == nil && u.Scheme == "dpe" {
			segs := strings.Split(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
			for i, s := range segs {
				if d, err := url.PathUnescape(s); err == nil {
					segs[i] = d
				}
			}
			if r := strings.Join(segs, "/"); r != "" {
				return r
			}
		}
	}
	return ref.path
}

// baseDate anchors derived timestamps; a fixed instant keeps listings and
// goldens deterministic.
func baseDate() time.Time { return time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC) }

// derivedDate is a date derived from the path hash, for files without a
// mod time (embed.FS). annotations.lastModified must be ISO 8601 (seed 000
// §校验规则 4).
func derivedDate(p string) string {
	h := fnv.New32a()
	h.Write([]byte(p))
	v := h.Sum32()
	t := baseDate().AddDate(0, 0, int(v%300)).Add(time.Duration(v>>9%(24*60)) * time.Minute)
	return t.Format(time.RFC3339)
}

// escapeDocRef builds dpe://host/<seg>/<seg> with every path segment
// percent-escaped on its own (dpe.md §校验规则 4: a%2Fb is one segment).
func escapeDocRef(host, docRef string) string {
	segs := strings.Split(docRef, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "dpe://" + host + "/" + strings.Join(segs, "/")
}

// fileURIOf is file://<root>/<path>, escaped by net/url.
func fileURIOf(root, p string) string {
	u := url.URL{Scheme: "file", Path: path.Join("/", root, p)}
	return u.String()
}
