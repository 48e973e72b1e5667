package skills

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// Bounds.
const (
	MaxSkills   = 256       // skills listed
	MaxSkillMD  = 1 << 20   // bytes of one SKILL.md
	MaxResource = 16 << 20  // bytes of any file served (4017 too_large above)
	InlineBytes = 256 << 10 // text up to this rides in get_skill's body
	ChunkBytes  = 512 << 10 // bytes of one get_blob chunk at most
)

// SkillEnv is the package's secrets file: never served (skill.md §9.1).
const SkillEnv = ".skillenv"

// Folder is a skills home: a directory of skill folders.
type Folder struct {
	dir string // absolute
	log *slog.Logger
}

// Open serves dir. It checks that dir is a directory and reads nothing
// else: skills are read when asked for.
func Open(dir string, log *slog.Logger) (*Folder, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("skills %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("skills %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("skills %s: not a directory", dir)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Folder{dir: abs, log: log}, nil
}

// List is every skill of the folder, by folder name: a folder whose
// SKILL.md is missing, unreadable, without a description or naming
// another skill is left out with a WARN (skill.md §1.5, §5: a failed skill
// is not shown, and the listing goes on).
func (f *Folder) List() []protocol.SkillRef {
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		f.log.Warn("skills: cannot read the folder", "dir", f.dir, "err", err)
		return []protocol.SkillRef{}
	}
	out := []protocol.SkillRef{}
	for _, e := range entries {
		if len(out) >= MaxSkills {
			f.log.Warn("skills: more skill folders than listed", "limit", MaxSkills)
			break
		}
		name := e.Name()
		if strings.HasPrefix(name, ".") || !e.IsDir() {
			continue
		}
		ref, err := f.ref(name)
		if err != nil {
			f.log.Warn("skills: skill left out", "skill", name, "err", err)
			continue
		}
		out = append(out, ref)
	}
	return out
}

func (f *Folder) ref(name string) (protocol.SkillRef, error) {
	if !kebab(name) {
		return protocol.SkillRef{}, errors.New("the folder name is not a skill name (lower-case letters, digits and single dashes, 1-64)")
	}
	b, err := f.read(name, protocol.DefaultSkillFile, MaxSkillMD)
	if err != nil {
		return protocol.SkillRef{}, err
	}
	front, _ := protocol.SplitSkillMD(b)
	fm, err := protocol.ParseFrontmatter(front)
	if err != nil {
		return protocol.SkillRef{}, err
	}
	switch {
	case strings.TrimSpace(fm.Description) == "":
		return protocol.SkillRef{}, errors.New("SKILL.md has no description")
	case fm.Name != "" && fm.Name != name:
		return protocol.SkillRef{}, fmt.Errorf("SKILL.md names skill %q, not its folder's name", fm.Name)
	}
	ref := protocol.SkillRef{Name: name, Source: "user", Path: filepath.Join(f.dir, name), Description: fm.Description,
		License: fm.License, Compatibility: fm.Compatibility, AllowedTools: fm.AllowedTools, Tags: fm.Tags, Version: fm.Version}
	if len(fm.Metadata) > 0 {
		if m, err := json.Marshal(fm.Metadata); err == nil {
			ref.SkillMetadata = m
		}
	}
	return ref, nil
}

// resource is one file of a package, as served: the bytes the agent
// consumes (SKILL.md without its frontmatter).
type resource struct {
	mime string
	data []byte
	sum  string
}

// Get answers client:get_skill for name's file relPath (SKILL.md when
// empty).
func (f *Folder) Get(name, relPath string) (*protocol.GetSkillRet, *protocol.Error) {
	if relPath == "" {
		relPath = protocol.DefaultSkillFile
	}
	r, perr := f.resource(name, relPath)
	if perr != nil {
		return nil, perr
	}
	ret := &protocol.GetSkillRet{Name: name, RelPath: relPath, MimeType: r.mime, TotalSize: int64(len(r.data)), SHA256: r.sum}
	if isText(r.mime) && len(r.data) <= InlineBytes {
		body := string(r.data)
		ret.Body = &body
	} else {
		ret.BlobHandle = mintHandle(name, relPath)
	}
	return ret, nil
}

// Blob answers client:get_blob: the chunk at offset of the file the handle
// names, at most maxChunk bytes (ChunkBytes when 0 or more).
func (f *Folder) Blob(handle string, offset int64, maxChunk int) (*protocol.GetBlobRet, *protocol.Error) {
	name, relPath, ok := parseHandle(handle)
	if !ok {
		return nil, blobError("invalid_handle", "the blob handle was not minted by this computer")
	}
	if validName(name) != nil {
		return nil, blobError("invalid_handle", "the blob handle was not minted by this computer")
	}
	r, perr := f.resource(name, relPath)
	if perr != nil {
		// Re-running the sandbox (blob-transfer.md §2 step 2-3): refused
		// now is forbidden, vanished is gone.
		reason := "gone"
		if perr.DetailReason() == "forbidden" || perr.DetailReason() == "traversal" {
			reason = "forbidden"
		}
		return nil, blobError(reason, fmt.Sprintf("skill %s: %s can no longer be served", name, relPath))
	}
	size := int64(len(r.data))
	if offset < 0 || offset > size {
		return nil, blobError("range", fmt.Sprintf("chunk_offset %d is outside 0..%d", offset, size))
	}
	n := int64(ChunkBytes)
	if maxChunk > 0 && int64(maxChunk) < n {
		n = int64(maxChunk)
	}
	end := min(offset+n, size)
	return &protocol.GetBlobRet{BlobHandle: handle, MimeType: r.mime, TotalSize: size, SHA256: r.sum, ChunkOffset: offset,
		EOF: end == size, Blob: base64.StdEncoding.EncodeToString(r.data[offset:end])}, nil
}

// resource resolves and reads one file under the sandbox.
func (f *Folder) resource(name, relPath string) (*resource, *protocol.Error) {
	if err := validName(name); err != nil {
		return nil, &protocol.Error{Code: protocol.CodeSkillNameInvalid, Message: fmt.Sprintf("%q is not a skill name: %v", trunc(name), err)}
	}
	if strings.Contains(name, ":") || !f.has(name) {
		return nil, &protocol.Error{Code: protocol.CodeMCPServerNotFound, Message: fmt.Sprintf("no skill named %s", trunc(name))}
	}
	clean, reason := checkRelPath(relPath)
	if reason != "" {
		return nil, resourceError(reason, name, relPath, 0)
	}
	data, err := f.read(name, clean, MaxResource)
	if err != nil {
		var big *tooLarge
		switch {
		case errors.As(err, &big):
			return nil, resourceError("too_large", name, relPath, big.size)
		case errors.Is(err, fs.ErrNotExist):
			return nil, resourceError("not_found", name, relPath, 0)
		case isEscape(err):
			return nil, resourceError("traversal", name, relPath, 0)
		case errors.Is(err, errSkillEnv):
			return nil, resourceError("forbidden", name, relPath, 0)
		default:
			f.log.Warn("skills: file refused", "skill", name, "rel_path", relPath, "err", err)
			return nil, resourceError("forbidden", name, relPath, 0)
		}
	}
	if clean == protocol.DefaultSkillFile {
		_, data = protocol.SplitSkillMD(data)
	}
	sum := sha256.Sum256(data)
	return &resource{mime: mimeOf(clean), data: data, sum: hex.EncodeToString(sum[:])}, nil
}

// has reports whether name is a skill folder of f (the registry: names
// are looked up, never turned into paths unchecked, skill.md §9.2).
func (f *Folder) has(name string) bool {
	fi, err := os.Lstat(filepath.Join(f.dir, name))
	return err == nil && fi.IsDir() && kebab(name)
}

type tooLarge struct{ size int64 }

func (e *tooLarge) Error() string { return fmt.Sprintf("%d bytes, more than %d", e.size, MaxResource) }

// read opens skill/rel through an os.Root at the skill's folder (no
// escape, symlinks included), non-blocking, and reads it whole when it is
// a regular file of at most limit bytes.
func (f *Folder) read(skill, rel string, limit int64) ([]byte, error) {
	root, err := os.OpenRoot(filepath.Join(f.dir, skill))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if err := notSkillEnv(root, rel); err != nil {
		return nil, err
	}
	file, err := root.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if env, err := root.Stat(SkillEnv); err == nil && os.SameFile(env, st) {
		return nil, errSkillEnv // a hard link, or a path the hops missed
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", rel)
	}
	if st.Size() > limit {
		return nil, &tooLarge{size: st.Size()}
	}
	b, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &tooLarge{size: int64(len(b))}
	}
	return b, nil
}

var errSkillEnv = errors.New("the package's " + SkillEnv + " is never served")

// notSkillEnv follows the symlinks of rel's last element inside root (a
// few hops) and refuses one that lands on a .skillenv: the secret stays
// unreadable under any name (skill.md §9.1 (a)).
func notSkillEnv(root *os.Root, rel string) error {
	for range 8 {
		if path.Base(rel) == SkillEnv {
			return errSkillEnv
		}
		fi, err := root.Lstat(filepath.FromSlash(rel))
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return nil // the open says what is wrong, if anything
		}
		target, err := root.Readlink(filepath.FromSlash(rel))
		if err != nil {
			return nil
		}
		rel = path.Join(path.Dir(rel), filepath.ToSlash(target))
	}
	return nil
}

// isEscape reports whether err is os.Root refusing a path that leaves it.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// checkRelPath is the lexical half of safe_join: the cleaned POSIX path,
// or the 4017 reason it is refused for.
func checkRelPath(p string) (string, string) {
	switch {
	case p == "" || strings.ContainsAny(p, "\x00\\") || len(p) > 1024:
		return "", "traversal"
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p) || (len(p) > 1 && p[1] == ':'):
		return "", "traversal"
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "", "traversal"
		}
		if seg == SkillEnv {
			return "", "forbidden"
		}
	}
	clean := path.Clean(p)
	if clean == "." {
		return "", "not_found"
	}
	return clean, ""
}

func resourceError(reason, skill, rel string, size int64) *protocol.Error {
	what := map[string]string{
		"traversal": protocol.TraversalCause(rel),
		"forbidden": "may not be read",
		"not_found": "is not in the skill's folder",
		"too_large": fmt.Sprintf("is over the %d MiB this computer serves", MaxResource>>20),
	}[reason]
	details := map[string]any{"reason": reason}
	if size > 0 {
		details["total_size"] = size
	}
	d, _ := json.Marshal(details)
	return &protocol.Error{Code: protocol.CodeSkillResource, Message: fmt.Sprintf("skill %s: %s %s", trunc(skill), trunc(rel), what), Details: d}
}

func blobError(reason, msg string) *protocol.Error {
	d, _ := json.Marshal(map[string]any{"reason": reason})
	return &protocol.Error{Code: protocol.CodeBlobNotAccessible, Message: msg, Details: d}
}

// Handles: "s1." + base64url(JSON [name, rel_path]).
const handlePrefix = "s1."

func mintHandle(name, rel string) string {
	b, _ := json.Marshal([]string{name, rel})
	return handlePrefix + base64.RawURLEncoding.EncodeToString(b)
}

func parseHandle(h string) (name, rel string, ok bool) {
	rest, found := strings.CutPrefix(h, handlePrefix)
	if !found || len(rest) > 4096 {
		return "", "", false
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return "", "", false
	}
	var parts []string
	if json.Unmarshal(b, &parts) != nil || len(parts) != 2 {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// validName is skill.md §1.4's lexer: 1 segment (user), 2 (marketplace)
// or 3 starting with "mcp" (mcp, the middle one a bundle_id).
func validName(name string) error {
	segs := strings.Split(name, ":")
	switch len(segs) {
	case 1, 2:
		for _, s := range segs {
			if !kebab(s) {
				return fmt.Errorf("segment %q breaks the naming rules", trunc(s))
			}
		}
	case 3:
		if segs[0] != "mcp" || !bundleID(segs[1]) || !kebab(segs[2]) {
			return errors.New("a three-part name is mcp:<bundle_id>:<skill>")
		}
	default:
		return fmt.Errorf("%d parts, want 1 to 3", len(segs))
	}
	return nil
}

// kebab is marketplace §3.1: [a-z0-9-], 1–64, no leading, trailing or
// double dash.
func kebab(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}

// bundleID is data-structures.md §BundleID's charset: [A-Za-z0-9_-], no
// "__" (no "." by construction).
func bundleID(s string) bool {
	if s == "" || len(s) > 128 || strings.Contains(s, "__") {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '-' && r != '_' {
			return false
		}
	}
	return true
}

// mimeOf is skill.md §6.4's built-in extension map: the same answer on
// every host, never the OS registry.
func mimeOf(p string) string {
	ext := strings.ToLower(path.Ext(p))
	if m, ok := mimes[ext]; ok {
		return m
	}
	return "application/octet-stream"
}

var mimes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain", ".json": "application/json",
	".xml": "application/xml", ".yaml": "application/yaml", ".yml": "application/yaml", ".toml": "application/toml",
	".rst": "text/x-rst", ".csv": "text/csv", ".tsv": "text/tab-separated-values", ".html": "text/html",
	".py": "text/x-python", ".sh": "text/x-shellscript", ".go": "text/x-go", ".js": "application/javascript",
	".svg": "image/svg+xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".pdf": "application/pdf", ".zip": "application/zip", ".gz": "application/gzip", ".wasm": "application/wasm",
}

// isText is skill.md §6.4 (2): text/*, a +json/+xml/+yaml suffix, or one
// of five essences.
func isText(mime string) bool {
	switch {
	case strings.HasPrefix(mime, "text/"):
		return true
	case strings.HasSuffix(mime, "+json"), strings.HasSuffix(mime, "+xml"), strings.HasSuffix(mime, "+yaml"):
		return true
	}
	return slices.Contains([]string{"application/json", "application/xml", "application/yaml", "application/toml", "application/javascript"}, mime)
}

func trunc(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return strings.ToValidUTF8(string(bytes.ReplaceAll([]byte(s), []byte("\n"), []byte(" "))), "?")
}
