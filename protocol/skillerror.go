package protocol

import (
	"fmt"
	"slices"
	"strings"
)

// SkillError is a refused get_skill or get_blob of a skill file, told as a
// sentence that names the skill and the file. The computer's payload is
// kept in Err (errors.As reaches it; its details are never in Error()).
//
// Codes (skill.md §7, blob-transfer.md §5; reasons from details.reason):
//   - 4014: no skill of that name (the code is reused for skills)
//   - 4016: the name breaks the skill-name rules
//   - 4017: traversal, forbidden, not_found, too_large
//   - 4018: invalid_handle, forbidden, gone, range
type SkillError struct {
	Code     int
	Computer string
	Skill    string
	Path     string // the rel_path asked for; "" is SKILL.md
	Reason   string // a known details.reason, else ""
	Err      *Error
}

// NewSkillError wraps perr, the answer to a get_skill or get_blob of skill's
// file path on computer, as a *SkillError when its code is one of the
// skill channel's; any other code comes back as perr.
func NewSkillError(perr *Error, computer, skill, path string) error {
	switch perr.Code {
	case CodeMCPServerNotFound, CodeSkillNameInvalid, CodeSkillResource, CodeBlobNotAccessible:
	default:
		return perr
	}
	e := &SkillError{Code: perr.Code, Computer: computer, Skill: skill, Path: path, Err: perr}
	switch r := perr.DetailReason(); r {
	case "traversal", "forbidden", "not_found", "too_large", "invalid_handle", "gone", "range":
		e.Reason = r
	}
	return e
}

func (e *SkillError) Error() string {
	file := e.Path
	if file == "" {
		file = DefaultSkillFile
	}
	on := ""
	if e.Computer != "" {
		on = " on computer " + e.Computer
	}
	var s string
	switch e.Code {
	case CodeMCPServerNotFound:
		s = fmt.Sprintf("there is no skill %s%s", e.Skill, on)
	case CodeSkillNameInvalid:
		s = fmt.Sprintf("%q is not a valid skill name%s", e.Skill, on)
	case CodeSkillResource:
		switch e.Reason {
		case "traversal":
			s = fmt.Sprintf("skill %s%s: %s %s", e.Skill, on, file, TraversalCause(e.Path))
		case "forbidden":
			s = fmt.Sprintf("skill %s%s: %s may not be read", e.Skill, on, file)
		case "not_found":
			s = fmt.Sprintf("skill %s%s has no file %s", e.Skill, on, file)
		case "too_large":
			s = fmt.Sprintf("skill %s%s: %s is larger than the computer will send", e.Skill, on, file)
		default:
			s = fmt.Sprintf("skill %s%s: %s cannot be read", e.Skill, on, file)
		}
	case CodeBlobNotAccessible:
		switch e.Reason {
		case "gone":
			s = fmt.Sprintf("skill %s%s: %s is gone (removed or changed since it was listed)", e.Skill, on, file)
		case "forbidden":
			s = fmt.Sprintf("skill %s%s: %s may no longer be read", e.Skill, on, file)
		case "range":
			s = fmt.Sprintf("skill %s%s: %s was asked for past its end", e.Skill, on, file)
		case "invalid_handle":
			s = fmt.Sprintf("skill %s%s: the computer did not recognise its own handle for %s", e.Skill, on, file)
		default:
			s = fmt.Sprintf("skill %s%s: the bytes of %s cannot be fetched", e.Skill, on, file)
		}
	}
	return fmt.Sprintf("%s (%d)", s, e.Code)
}

// Unwrap exposes the payload.
func (e *SkillError) Unwrap() error { return e.Err }

// TraversalCause says why a rel_path refused as "traversal" (skill.md §7's
// safe_join) was refused, as the rest of a sentence that begins with the
// path: a lexical refusal is told for what it is (assets/../notes.txt
// stays inside the folder, and is refused all the same), and only a path
// that is clean is outside the folder (a symlink out of it).
func TraversalCause(rel string) string {
	switch {
	case rel == "":
		return "is refused: an empty path is not accepted"
	case len(rel) > 1024:
		return "is refused: a path over 1024 bytes is not accepted"
	case strings.ContainsAny(rel, "\x00\\"):
		return "is refused: a path with a backslash or NUL is not accepted"
	case strings.HasPrefix(rel, "/") || (len(rel) > 1 && rel[1] == ':'):
		return "is refused: an absolute path is not accepted"
	case slices.Contains(strings.Split(rel, "/"), ".."):
		return "is refused: a path with .. is not accepted"
	}
	return "is outside the skill's folder"
}
