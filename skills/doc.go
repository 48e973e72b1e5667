// Package skills serves a folder of skill packages to the A2C-SMCP skill
// channel (client:get_skills, client:get_skill, client:get_blob): each
// sub-folder with a SKILL.md is one skill of source "user", named after
// the folder (skill.md §1.2, §4: the package root is named as the
// frontmatter name).
//
// Path rules are skill.md §9.2's safe_join: rel_path must be relative, with
// no "..", no absolute path, no backslash or NUL; it is opened through an
// os.Root at the skill's folder, so a symlink that resolves outside the
// package is refused too (4017 traversal). ".skillenv", in any folder of
// the package, is refused as forbidden whether it exists or not, and so is
// anything that is not a regular file (FIFOs are opened non-blocking and
// checked on the descriptor). Sizes are bounded: SKILL.md heads and the
// listing are read within MaxSkillMD, a resource over MaxResource is 4017
// too_large (no handle is minted), text up to InlineBytes rides in body,
// anything else is served by get_blob in chunks of at most ChunkBytes.
//
// A blob handle is stateless (blob-transfer.md §1): the skill name and
// rel_path, encoded; every get_blob decodes it and runs the same sandbox
// again, and a file whose size or hash changed between chunks is read
// from its current bytes, whose sha256 the answer carries.
//
// Spec: A2C-SMCP/a2c-smcp-protocol docs/specification/skill.md (commit
// 13c1e56e) and blob-transfer.md (commit 25059e6b).
package skills
