package computer

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// The skill channel (skill.md §7, blob-transfer.md §2): answered from
// Options.Skills; a computer without one lists no skills and knows none.

func (c *Computer) handleGetSkills(_ context.Context, raw json.RawMessage) any {
	var req protocol.GetSkillsReq
	if err := json.Unmarshal(raw, &req); err != nil && len(raw) > 0 {
		return badRequest(protocol.EventGetSkills, err)
	}
	ret := &protocol.GetSkillsRet{Skills: []protocol.SkillRef{}, ReqID: req.ReqID}
	if c.opt.Skills != nil {
		ret.Skills = c.opt.Skills.List()
	}
	return ret
}

func (c *Computer) handleGetSkill(_ context.Context, raw json.RawMessage) any {
	var req protocol.GetSkillReq
	if err := json.Unmarshal(raw, &req); err != nil {
		return badRequest(protocol.EventGetSkill, err)
	}
	if c.opt.Skills == nil {
		return &protocol.Error{Code: protocol.CodeMCPServerNotFound, Message: fmt.Sprintf("computer %s serves no skills", c.opt.Name)}
	}
	ret, perr := c.opt.Skills.Get(req.Name, req.RelPath)
	if perr != nil {
		return perr
	}
	ret.ReqID = req.ReqID
	return ret
}

func (c *Computer) handleGetBlob(_ context.Context, raw json.RawMessage) any {
	var req protocol.GetBlobReq
	if err := json.Unmarshal(raw, &req); err != nil {
		return badRequest(protocol.EventGetBlob, err)
	}
	if c.opt.Skills == nil {
		d, _ := json.Marshal(map[string]string{"reason": "invalid_handle"})
		return &protocol.Error{Code: protocol.CodeBlobNotAccessible, Message: "this computer mints no blob handles", Details: d}
	}
	ret, perr := c.opt.Skills.Blob(req.BlobHandle, req.ChunkOffset, req.MaxChunkBytes)
	if perr != nil {
		return perr
	}
	ret.ReqID = req.ReqID
	return ret
}

// handlePutBlob refuses every upload fail-closed: this computer has no
// landing root (blob-transfer.md §7: "未配置 … → 4019 forbidden", zero
// bytes written). 0.4 makes the event a computer's MUST; answering it so
// tells the agent at once instead of after a timeout.
func (c *Computer) handlePutBlob(_ context.Context, _ json.RawMessage) any {
	d, _ := json.Marshal(map[string]string{"reason": "forbidden"})
	return &protocol.Error{Code: protocol.CodeBlobWriteFailed,
		Message: fmt.Sprintf("computer %s accepts no uploads (no landing root)", c.opt.Name), Details: d}
}
