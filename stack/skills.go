package stack

import (
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/dpe-tui/dpe-tui/skills"
)

// The demo's skills (computer alpha): dpe-review and pdf-triage, each a
// SKILL.md, a text file and a small binary file (a PNG badge, a one-page
// PDF), so a new user sees skills, a text file and a blob.
//
//go:embed demoskills
var demoSkills embed.FS

// Demo skill names.
const (
	SkillDPEReview = "dpe-review"
	SkillPDFTriage = "pdf-triage"
)

// openSkills is the skills folder alpha serves: dir, or the demo skills
// written to a private temp dir (a skill's path is a real local folder,
// skill.md §6) removed by the returned cleanup.
func openSkills(dir string, log *slog.Logger) (*skills.Folder, func() error, error) {
	cleanup := func() error { return nil }
	if dir == "" {
		tmp, err := os.MkdirTemp("", "dpe-tui-skills-")
		if err != nil {
			return nil, nil, fmt.Errorf("demo skills: %w", err)
		}
		cleanup = func() error { return os.RemoveAll(tmp) }
		if err := writeDemoSkills(tmp); err != nil {
			_ = cleanup()
			return nil, nil, fmt.Errorf("demo skills: %w", err)
		}
		dir = tmp
	}
	f, err := skills.Open(dir, log.With("component", "skills"))
	if err != nil {
		_ = cleanup()
		return nil, nil, fmt.Errorf("--skills: %w", err)
	}
	return f, cleanup, nil
}

func writeDemoSkills(dst string) error {
	sub, err := fs.Sub(demoSkills, "demoskills")
	if err != nil {
		return err
	}
	return fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "." {
			return err
		}
		to := filepath.Join(dst, filepath.FromSlash(p))
		if d.IsDir() {
			return os.Mkdir(to, 0o700)
		}
		b, err := fs.ReadFile(sub, p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o600)
	})
}
