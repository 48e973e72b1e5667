package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// DefaultSkillFile is the entry of a skill package, what get_skill reads
// when rel_path is absent (skill.md §6 GetSkillReq).
const DefaultSkillFile = "SKILL.md"

// SkillRef is one element of client:get_skills (skill.md §6 A2CSkillRef).
// Name, Source, Path and Description are required of the computer; the
// agent must assume none of the others.
type SkillRef struct {
	// Name is the skill's identity, opaque: "<skill>" (user),
	// "<plugin>:<skill>" (marketplace), "mcp:<bundle_id>:<skill>" (mcp).
	Name        string `json:"name"`
	Source      string `json:"source"` // "user", "marketplace:<repo>", "mcp:<bundle_id>"
	URI         string `json:"uri,omitempty"`
	Path        string `json:"path"` // the computer's local directory: never a path here
	Description string `json:"description"`

	License       string          `json:"license,omitempty"`
	Compatibility string          `json:"compatibility,omitempty"`
	AllowedTools  StringList      `json:"allowed_tools,omitempty"`
	Tags          StringList      `json:"tags,omitempty"` // 0.4.0 (protocol#50)
	Version       string          `json:"version,omitempty"`
	SkillMetadata json.RawMessage `json:"skill_metadata,omitempty"`
}

// StringList is a list of strings that reads anything else as absent:
// skill.md §1.5 says a tags value that is not list[str] is left out, and
// one bad field must not lose the skill.
type StringList []string

// UnmarshalJSON keeps the strings of an array of strings; anything else
// (an array with a non-string, an object, a number) reads as nil.
func (l *StringList) UnmarshalJSON(b []byte) error {
	var out []string
	if json.Unmarshal(b, &out) != nil {
		*l = nil
		return nil
	}
	*l = out
	return nil
}

// GetSkillsReq is the payload of client:get_skills.
type GetSkillsReq struct {
	AgentCallData
	Computer string `json:"computer"`
}

// GetSkillsRet answers client:get_skills: installed skills in discovery
// order, not sorted, not de-duplicated.
type GetSkillsRet struct {
	Skills []SkillRef `json:"skills"`
	ReqID  string     `json:"req_id,omitempty"`
}

// GetSkillReq is the payload of client:get_skill: one file of a skill
// package, SKILL.md when RelPath is empty.
type GetSkillReq struct {
	AgentCallData
	Computer string `json:"computer"`
	Name     string `json:"name"`
	RelPath  string `json:"rel_path,omitempty"`
}

// GetSkillRet answers client:get_skill. Exactly one of Body and
// BlobHandle is present. TotalSize and SHA256 are of the bytes the agent
// consumes: for SKILL.md the body after its frontmatter is cut.
type GetSkillRet struct {
	Name       string  `json:"name"`
	RelPath    string  `json:"rel_path"`
	MimeType   string  `json:"mime_type"`
	TotalSize  int64   `json:"total_size"`
	SHA256     string  `json:"sha256"`
	Body       *string `json:"body,omitempty"`
	BlobHandle string  `json:"blob_handle,omitempty"`
	ReqID      string  `json:"req_id,omitempty"`
}

// GetBlobReq is the payload of client:get_blob (blob-transfer.md §2).
// ChunkOffset is an absolute byte offset, so every request stands alone.
type GetBlobReq struct {
	AgentCallData
	Computer      string `json:"computer"`
	BlobHandle    string `json:"blob_handle"`
	ChunkOffset   int64  `json:"chunk_offset"`
	MaxChunkBytes int    `json:"max_chunk_bytes,omitempty"`
}

// GetBlobRet is one chunk. EOF ⟺ ChunkOffset + len(decoded Blob) ==
// TotalSize; SHA256 and TotalSize are of the whole resource and must not
// change between chunks of one read.
type GetBlobRet struct {
	BlobHandle  string `json:"blob_handle"`
	MimeType    string `json:"mime_type"`
	TotalSize   int64  `json:"total_size"`
	SHA256      string `json:"sha256"`
	ChunkOffset int64  `json:"chunk_offset"`
	EOF         bool   `json:"eof"`
	Blob        string `json:"blob"` // base64
	ReqID       string `json:"req_id,omitempty"`
}

// PutBlobReq is one chunk of client:put_blob (0.4.0, blob-transfer.md §3).
// TotalSize, SHA256 and NameHint travel in the first chunk only.
type PutBlobReq struct {
	AgentCallData
	Computer    string `json:"computer"`
	UploadID    string `json:"upload_id,omitempty"`
	ChunkOffset int64  `json:"chunk_offset"`
	EOF         bool   `json:"eof"`
	TotalSize   *int64 `json:"total_size,omitempty"`
	SHA256      string `json:"sha256,omitempty"`
	NameHint    string `json:"name_hint,omitempty"`
	Blob        string `json:"blob"`
}

// PutBlobRet answers one chunk; LandingPath, TotalSize and SHA256 come
// with the last.
type PutBlobRet struct {
	UploadID    string `json:"upload_id"`
	ChunkOffset int64  `json:"chunk_offset"`
	LandingPath string `json:"landing_path,omitempty"`
	TotalSize   *int64 `json:"total_size,omitempty"`
	SHA256      string `json:"sha256,omitempty"`
	ReqID       string `json:"req_id,omitempty"`
}

// SkillFrontmatter is the YAML head of a SKILL.md (marketplace SKILL v1
// §3: name, description, license, compatibility, tags, metadata,
// allowed-tools). Version is not a frontmatter field: A2CSkillRef.version
// comes from the source (skill.md §6 note), kept here for packages that
// write it anyway.
type SkillFrontmatter struct {
	Name          string
	Description   string
	License       string
	Compatibility string
	Version       string
	Tags          []string // nil unless the value is a list of strings
	AllowedTools  []string // "allowed-tools", a list or one space-separated string
	Metadata      map[string]any
}

// maxFrontmatter bounds the YAML read: a SKILL.md head is a few lines.
const maxFrontmatter = 64 << 10

// SplitSkillMD cuts a SKILL.md into its frontmatter and its body: the
// frontmatter is the block from a first line "---" to the next "---" line,
// both included (skill.md §7 step 4). Without one, front is nil and body
// is all of b.
func SplitSkillMD(b []byte) (front, body []byte) {
	rest, ok := cutLine(b, "---")
	if !ok {
		return nil, b
	}
	for off := 0; off < len(rest); {
		end := bytes.IndexByte(rest[off:], '\n')
		lineEnd := len(rest)
		next := len(rest)
		if end >= 0 {
			lineEnd = off + end
			next = lineEnd + 1
		}
		if strings.TrimRight(string(rest[off:lineEnd]), "\r \t") == "---" {
			return rest[:off], rest[next:]
		}
		off = next
	}
	return nil, b
}

// cutLine reports whether b starts with the line want and returns what follows it.
func cutLine(b []byte, want string) ([]byte, bool) {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	end := bytes.IndexByte(b, '\n')
	if end < 0 {
		return nil, false
	}
	if strings.TrimRight(string(b[:end]), "\r \t") != want {
		return nil, false
	}
	return b[end+1:], true
}

// ParseFrontmatter reads the YAML of a frontmatter block. Fields of the
// wrong type read as absent; only YAML that does not parse, or a head
// over 64 KiB, is an error.
func ParseFrontmatter(front []byte) (SkillFrontmatter, error) {
	var fm SkillFrontmatter
	if len(front) > maxFrontmatter {
		return fm, fmt.Errorf("SKILL.md frontmatter is over %d KiB", maxFrontmatter>>10)
	}
	var m map[string]any
	if err := yaml.Unmarshal(front, &m); err != nil {
		return fm, fmt.Errorf("SKILL.md frontmatter is not YAML: %s", oneLine(err.Error()))
	}
	str := func(k string) string {
		switch v := m[k].(type) {
		case string:
			return v
		case int, float64, bool:
			return fmt.Sprint(v)
		}
		return ""
	}
	fm.Name, fm.Description, fm.License = str("name"), str("description"), str("license")
	fm.Compatibility, fm.Version = str("compatibility"), str("version")
	fm.Tags = stringList(m["tags"])
	fm.AllowedTools = stringList(m["allowed-tools"])
	if s, ok := m["allowed-tools"].(string); ok {
		fm.AllowedTools = strings.Fields(s)
	}
	fm.Metadata, _ = m["metadata"].(map[string]any)
	return fm, nil
}

func stringList(v any) []string {
	a, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(a))
	for _, x := range a {
		s, ok := x.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}
