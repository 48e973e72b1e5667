package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dpe-tui/dpe-tui/internal/bytesize"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// Bounds on what the skill channel may carry into this process.
const (
	// MaxSkills is the most skills one get_skills answer is read for.
	MaxSkills = 1000
	// DefaultMaxSkillFileBytes is the default budget of one skill file,
	// inline body or blob.
	DefaultMaxSkillFileBytes = 32 << 20
	// maxBlobChunks bounds a get_blob loop whatever the sizes say.
	maxBlobChunks = 100000
)

// Skills lists computer's skills (client:get_skills), in the computer's
// order. A skill without a name is dropped; fields of the wrong type read
// as absent; at most MaxSkills are kept.
func (c *Client) Skills(ctx context.Context, computer string) ([]protocol.SkillRef, error) {
	var ret struct {
		Skills []json.RawMessage `json:"skills"`
	}
	_, err := c.do(ctx, protocol.EventGetSkills, computer,
		protocol.GetSkillsReq{AgentCallData: c.agentCall(), Computer: computer}, &ret)
	if err != nil {
		return nil, ofComputer("skills", computer, err)
	}
	var out []protocol.SkillRef
	for _, raw := range ret.Skills {
		if len(out) == MaxSkills {
			c.log.Warn("skills over the limit dropped", "computer", computer, "kept", MaxSkills, "sent", len(ret.Skills))
			break
		}
		var s protocol.SkillRef
		if json.Unmarshal(raw, &s) != nil {
			s = lenientSkill(raw)
		}
		if s.Name == "" {
			continue
		}
		s.Name, _ = truncField(s.Name, c.opt.Limits.MaxFieldBytes)
		s.Description, _ = truncField(s.Description, c.opt.Limits.MaxFieldBytes)
		out = append(out, s)
	}
	return out, nil
}

// lenientSkill keeps the string fields of a skill whose other fields have
// unexpected types.
func lenientSkill(raw json.RawMessage) protocol.SkillRef {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	str := func(k string) string { s, _ := m[k].(string); return s }
	return protocol.SkillRef{Name: str("name"), Source: str("source"), URI: str("uri"), Path: str("path"),
		Description: str("description"), Version: str("version")}
}

// SkillFile is one file of a skill package as client:get_skill and,
// for a blob, client:get_blob delivered it.
type SkillFile struct {
	Skill    string
	RelPath  string // as the computer echoed it ("SKILL.md" by default)
	MimeType string
	Data     []byte // the bytes: SKILL.md without its frontmatter, any other file as stored
	Blob     bool   // Data came through get_blob
}

// SkillFileOptions bound ReadSkillFile. Zero values take defaults.
type SkillFileOptions struct {
	MaxBytes int64 // refuse a file larger than this (default DefaultMaxSkillFileBytes)
	// MaxChunkBytes is the chunk size asked of get_blob (0: the computer's choice).
	MaxChunkBytes int
}

// ReadSkillFile reads relPath ("" for SKILL.md) of skill name on computer:
// client:get_skill, then the file's bytes through client:get_blob when the
// computer hands a blob_handle. The size is checked against the budget
// before anything is fetched, every chunk against the first one's
// total_size and sha256, and the whole against its sha256 (an inline body
// too, when the computer sent one). The computer's refusals are
// *protocol.SkillError sentences; a broken transfer is a *BlobError.
func (c *Client) ReadSkillFile(ctx context.Context, computer, name, relPath string, opt SkillFileOptions) (*SkillFile, error) {
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxSkillFileBytes
	}
	file := relPath
	if file == "" {
		file = protocol.DefaultSkillFile
	}
	what := fmt.Sprintf("skill %s file %s on computer %s", name, file, computer)
	var ret protocol.GetSkillRet
	_, err := c.do(ctx, protocol.EventGetSkill, computer,
		protocol.GetSkillReq{AgentCallData: c.agentCall(), Computer: computer, Name: name, RelPath: relPath}, &ret)
	if err != nil {
		return nil, skillErr(err, computer, name, relPath)
	}
	out := &SkillFile{Skill: name, RelPath: ret.RelPath, MimeType: ret.MimeType}
	if out.RelPath == "" {
		out.RelPath = file
	}
	if ret.TotalSize > opt.MaxBytes {
		return nil, &BlobError{What: what, Problem: fmt.Sprintf("it is %s, over the budget of %s",
			bytesize.Format(ret.TotalSize), bytesize.Format(opt.MaxBytes)), TooLarge: true}
	}
	switch {
	case ret.Body != nil && ret.BlobHandle != "":
		return nil, &BlobError{What: what, Problem: "the answer has both a body and a blob_handle"}
	case ret.Body != nil:
		if int64(len(*ret.Body)) > opt.MaxBytes {
			return nil, &BlobError{What: what, Problem: "its body is over the budget of " + bytesize.Format(opt.MaxBytes), TooLarge: true}
		}
		out.Data = []byte(*ret.Body)
		if err := checkSum(what, out.Data, ret.TotalSize, ret.SHA256); err != nil {
			return nil, err
		}
		return out, nil
	case ret.BlobHandle == "":
		return nil, &BlobError{What: what, Problem: "the answer has neither a body nor a blob_handle"}
	}
	blob, err := c.readBlob(ctx, computer, ret.BlobHandle, what, opt)
	if err != nil {
		return nil, skillErr(err, computer, name, relPath)
	}
	if ret.SHA256 != "" && blob.sha != "" && !strings.EqualFold(ret.SHA256, blob.sha) {
		return nil, &BlobError{What: what, Problem: "get_skill and get_blob name different sha256 values (the file changed)"}
	}
	out.Data, out.Blob = blob.data, true
	if out.MimeType == "" {
		out.MimeType = blob.mime
	}
	return out, nil
}

// skillErr turns a skill-channel ErrorPayload into its sentence.
func skillErr(err error, computer, name, relPath string) error {
	var perr *protocol.Error
	var na *NoAnswerError
	if errors.As(err, &na) || !errors.As(err, &perr) {
		return err
	}
	if se := protocol.NewSkillError(perr, computer, name, relPath); se != error(perr) {
		return se
	}
	return err
}

// BlobError is a file whose bytes could not be taken as delivered: over
// the budget, or a transfer that contradicts itself (sizes, offsets,
// checksums). What names the file.
type BlobError struct {
	What     string
	Problem  string
	TooLarge bool // over the size budget, nothing (more) was fetched
}

func (e *BlobError) Error() string { return e.What + ": " + e.Problem }

type blobData struct {
	data      []byte
	sha, mime string
}

// readBlob pulls handle by chunk_offset until eof (blob-transfer.md §2, §4).
// A total_size or sha256 that changes between chunks means the source was
// rewritten: the read starts again from offset 0, once.
func (c *Client) readBlob(ctx context.Context, computer, handle, what string, opt SkillFileOptions) (*blobData, error) {
	for attempt := 0; ; attempt++ {
		b, changed, err := c.readBlobOnce(ctx, computer, handle, what, opt)
		if err == nil || !changed || attempt == 1 {
			return b, err
		}
		c.log.Info("blob changed while read; reading again from offset 0", "what", what)
	}
}

func (c *Client) readBlobOnce(ctx context.Context, computer, handle, what string, opt SkillFileOptions) (*blobData, bool, error) {
	var (
		buf       bytes.Buffer
		total     int64 = -1
		sum, mime string
	)
	for n := 0; ; n++ {
		if n == maxBlobChunks {
			return nil, false, &BlobError{What: what, Problem: fmt.Sprintf("no end after %d chunks", maxBlobChunks)}
		}
		off := int64(buf.Len())
		var ret protocol.GetBlobRet
		_, err := c.do(ctx, protocol.EventGetBlob, computer, protocol.GetBlobReq{AgentCallData: c.agentCall(),
			Computer: computer, BlobHandle: handle, ChunkOffset: off, MaxChunkBytes: opt.MaxChunkBytes}, &ret)
		if err != nil {
			return nil, false, err
		}
		if total < 0 {
			total, sum, mime = ret.TotalSize, ret.SHA256, ret.MimeType
			if total < 0 {
				return nil, false, &BlobError{What: what, Problem: "negative total_size"}
			}
			if total > opt.MaxBytes {
				return nil, false, &BlobError{What: what, Problem: fmt.Sprintf("it is %s, over the budget of %s",
					bytesize.Format(total), bytesize.Format(opt.MaxBytes)), TooLarge: true}
			}
			buf.Grow(int(total))
		} else if ret.TotalSize != total || !strings.EqualFold(ret.SHA256, sum) {
			return nil, true, &BlobError{What: what, Problem: "total_size or sha256 changed between chunks (the file was rewritten)"}
		}
		if ret.ChunkOffset != off {
			return nil, false, &BlobError{What: what, Problem: fmt.Sprintf("asked for offset %d, got a chunk at %d", off, ret.ChunkOffset)}
		}
		// Decoded size is at most 3/4 of the text: charge it before decoding.
		if off+int64(base64.StdEncoding.DecodedLen(len(ret.Blob)))-2 > total {
			return nil, false, &BlobError{What: what, Problem: "a chunk goes past total_size"}
		}
		chunk, err := base64.StdEncoding.DecodeString(ret.Blob)
		if err != nil {
			return nil, false, &BlobError{What: what, Problem: "a chunk is not base64"}
		}
		if off+int64(len(chunk)) > total {
			return nil, false, &BlobError{What: what, Problem: "a chunk goes past total_size"}
		}
		buf.Write(chunk)
		end := int64(buf.Len()) == total
		if ret.EOF != end {
			return nil, false, &BlobError{What: what, Problem: fmt.Sprintf("eof is %v at %d of %d bytes", ret.EOF, buf.Len(), total)}
		}
		if end {
			break
		}
		if len(chunk) == 0 {
			return nil, false, &BlobError{What: what, Problem: "an empty chunk before the end"}
		}
	}
	if err := checkSum(what, buf.Bytes(), total, sum); err != nil {
		return nil, true, err
	}
	return &blobData{data: buf.Bytes(), sha: sum, mime: mime}, false, nil
}

// checkSum holds data to the size and sha256 the computer declared
// (either may be absent from a peer that leaves them out).
func checkSum(what string, data []byte, size int64, sum string) error {
	if size > 0 && int64(len(data)) != size {
		return &BlobError{What: what, Problem: fmt.Sprintf("%d bytes arrived, total_size said %d", len(data), size)}
	}
	if sum == "" {
		return nil
	}
	got := sha256.Sum256(data)
	if !strings.EqualFold(hex.EncodeToString(got[:]), sum) {
		return &BlobError{What: what, Problem: "its bytes do not match their sha256"}
	}
	return nil
}
