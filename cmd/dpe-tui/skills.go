package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/convert"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/safewrite"
	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/sanitize"
)

// lsSkill is one row of ls skills --json.
type lsSkill struct {
	Computer    string   `json:"computer"`
	Name        string   `json:"name"`
	Source      string   `json:"source"`
	Description string   `json:"description"`
	Version     string   `json:"version"`
	Tags        []string `json:"tags"`
}

// lsSkills lists each computer's skills (client:get_skills). A computer
// that cannot list is skipped with one line, as ls does for servers.
func lsSkills(ctx context.Context, c *client.Client, computers []sessionInfo, out *table, stderr io.Writer) error {
	out.header("COMPUTER", "SKILL", "SOURCE", "VERSION", "TAGS", "DESCRIPTION")
	var st lsStatus
	for _, comp := range computers {
		skills, err := c.Skills(ctx, comp.Name)
		if err != nil {
			if fatalListErr(ctx, err) {
				return err
			}
			st.skip(stderr, "computer "+comp.Name, err)
			continue
		}
		st.listed++
		for _, s := range skills {
			row := lsSkill{Computer: sanitize.Text(comp.Name), Name: sanitize.Text(s.Name), Source: sanitize.Text(s.Source),
				Description: sanitize.Text(s.Description), Version: sanitize.Text(s.Version), Tags: sanitizeAll(s.Tags)}
			out.row(row, comp.Name, s.Name, s.Source, s.Version, strings.Join(s.Tags, ","), s.Description)
		}
	}
	if st.listed == 0 && st.skipped > 0 {
		return &exitError{code: exitNothingListed, msg: fmt.Sprintf("nothing could be listed: %d skipped", st.skipped)}
	}
	return nil
}

// getSkill prints skill's file at rel (SKILL.md when empty) as a document,
// or with -o writes its exact bytes. The computer is --computer, else the
// one computer of the office that lists the skill (more is an error).
func getSkill(ctx context.Context, f *getFlags, skill, rel string, stdout, stderr io.Writer) (retErr error) {
	log, closeLog, err := f.logger()
	if err != nil {
		return err
	}
	defer closeLog()
	defer func() { logError(log, "get --skill", retErr) }()
	t, err := resolveTarget(ctx, &f.globalFlags, log)
	if err != nil {
		return err
	}
	defer t.Close()
	c, err := dial(ctx, &f.globalFlags, t, log)
	if err != nil {
		return err
	}
	defer c.Close()
	comp, ref, err := skillComputer(ctx, c, f.Computer, skill)
	if err != nil {
		return err
	}
	file, err := c.ReadSkillFile(ctx, comp, skill, rel, client.SkillFileOptions{})
	if err != nil {
		return err
	}
	if f.out != "" {
		if err := safewrite.New(f.out, file.Data, 0o600); err != nil {
			// The write goes through a temporary name beside f.out; the
			// user knows only the name they gave.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = fmt.Errorf("write %s: %w", f.out, pe.Err)
			}
			return fmt.Errorf("save %s of skill %s: %w", file.RelPath, sanitize.Line(skill), err)
		}
		fmt.Fprintf(stderr, "dpe-tui: wrote %d bytes of %s of skill %s to %s\n", len(file.Data),
			sanitize.Line(file.RelPath), sanitize.Line(skill), sanitize.Line(f.out))
		if file.RelPath == protocol.DefaultSkillFile {
			// skill.md §7 step 4: the computer strips the frontmatter. A
			// peer that sent it whole sent the exact bytes.
			if front, _ := protocol.SplitSkillMD(file.Data); front == nil {
				fmt.Fprintf(stderr, "dpe-tui: the computer sends %s without its frontmatter: %s is its body, not the file's exact bytes\n",
					protocol.DefaultSkillFile, sanitize.Line(f.out))
			}
		}
		return nil
	}
	if !textMIME(file.MimeType) {
		return fmt.Errorf("%s of skill %s is binary (%s, %d bytes): save it with -o FILE",
			sanitize.Line(file.RelPath), sanitize.Line(skill), sanitize.Line(file.MimeType), len(file.Data))
	}
	op, err := skillDocument(ctx, comp, file, ref)
	if err != nil {
		return err
	}
	opener := &dpe.Opener{Limits: dpe.DefaultLimits()}
	if f.Format == "md" || f.Format == "" {
		return renderMarkdown(stdout, f.Theme, f.noColor(), func(w io.Writer) error {
			return printGet(ctx, opener, op, f.Page, f.Format, w)
		})
	}
	return printGet(ctx, opener, op, f.Page, f.Format, stdout)
}

// skillComputer finds which computer to ask, and the skill's listing there.
func skillComputer(ctx context.Context, c *client.Client, computer, skill string) (string, *protocol.SkillRef, error) {
	var names []string
	if computer != "" {
		names = []string{computer}
	} else {
		comps, err := c.Computers(ctx)
		if err != nil {
			return "", nil, fmt.Errorf("list computers: %w", err)
		}
		for _, s := range comps {
			names = append(names, s.Name)
		}
	}
	var firstErr error
	var on []string // the computers that list the skill
	var ref *protocol.SkillRef
	for _, name := range names {
		skills, err := c.Skills(ctx, name)
		if err != nil {
			if len(names) == 1 {
				return "", nil, err
			}
			firstErr = cmpErr(firstErr, err)
			continue
		}
		for i := range skills {
			if skills[i].Name == skill {
				on = append(on, name)
				ref = &skills[i]
				break
			}
		}
	}
	switch {
	case len(on) == 1:
		return on[0], ref, nil
	case len(on) > 1:
		// Two computers' skills of one name may differ: picking one would
		// show the user a file they did not choose (as --server refuses a
		// name two servers share).
		for i := range on {
			on[i] = sanitize.Line(on[i])
		}
		slices.Sort(on)
		return "", nil, usageErrorf("skill %s is on %s: pass --computer", sanitize.Line(skill), strings.Join(on, ", "))
	}
	if firstErr != nil {
		return "", nil, fmt.Errorf("no computer lists skill %s (%v)", sanitize.Line(skill), firstErr)
	}
	if computer != "" {
		return "", nil, fmt.Errorf("computer %s lists no skill %s", sanitize.Line(computer), sanitize.Line(skill))
	}
	return "", nil, fmt.Errorf("no computer of the office lists skill %s", sanitize.Line(skill))
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// skillDocument converts a text file of a skill into a document: its body
// through the converter (Markdown for SKILL.md), with the skill's listing
// as the document's metadata: title the skill's name, summary its
// description, source and version; keywords its tags. The listing comes
// from the computer, so it is given as a front-matter block of
// "key: value" lines, each folded to one line.
func skillDocument(ctx context.Context, computer string, file *client.SkillFile, ref *protocol.SkillRef) (*dpe.Opened, error) {
	body := file.Data
	name := path.Base(file.RelPath)
	if strings.EqualFold(path.Ext(name), ".md") || strings.HasPrefix(file.MimeType, "text/markdown") {
		// The computer strips SKILL.md's own frontmatter (skill.md §7
		// step 4); from a peer that did not, it is not shown twice, and
		// what the listing left out is taken from it.
		if front, rest := protocol.SplitSkillMD(body); front != nil {
			body = rest
			if fm, err := protocol.ParseFrontmatter(front); err == nil {
				r := *ref
				if r.Description == "" {
					r.Description = fm.Description
				}
				if r.Tags == nil {
					r.Tags = fm.Tags
				}
				ref = &r
			}
		}
		var head bytes.Buffer
		line := func(k, v string) {
			if v = strings.Join(strings.Fields(v), " "); v != "" {
				fmt.Fprintf(&head, "%s: %s\n", k, v)
			}
		}
		title := ref.Name
		if file.RelPath != protocol.DefaultSkillFile {
			title += " / " + file.RelPath
		}
		line("title", title)
		summary := ref.Description
		if ref.Source != "" {
			summary += " (source " + ref.Source
			if ref.Version != "" {
				summary += ", version " + ref.Version
			}
			summary += ")"
		}
		line("summary", summary)
		line("keywords", strings.Join(ref.Tags, ", "))
		if head.Len() > 0 {
			body = append([]byte("---\n"+head.String()+"---\n"), body...)
		}
		if !strings.EqualFold(path.Ext(name), ".md") {
			name += ".md"
		}
	}
	conv := convert.New(convert.Options{})
	defer conv.Close()
	// The document's uri names where it came from (not dpe://local/, which
	// every skill would share); a computer does not say when a skill file
	// changed, so last_modified is left out rather than made up.
	uri := (&url.URL{Scheme: "skill", Host: computer, Path: "/" + ref.Name + "/" + file.RelPath}).String()
	data, err := conv.ConvertJSON(ctx, convert.Source{Name: name, ReaderAt: bytes.NewReader(body), Size: int64(len(body)),
		URI: uri})
	if err != nil {
		return nil, fmt.Errorf("%s of skill %s: %w", sanitize.Line(file.RelPath), sanitize.Line(ref.Name), err)
	}
	doc, err := dpe.Decode(data, dpe.DefaultLimits())
	if err != nil {
		return nil, fmt.Errorf("%s of skill %s: %w", sanitize.Line(file.RelPath), sanitize.Line(ref.Name), err)
	}
	return &dpe.Opened{Access: dpe.Access{URI: uri, Size: int64(len(data))}, Kind: dpe.KindDocument,
		Doc: doc, Body: data, MimeType: protocol.MimeDPEInline}, nil
}

// textMIME is skill.md §6.4's "text MIME": text/*, a +json/+xml/+yaml
// suffix, or one of the listed essences.
func textMIME(m string) bool {
	m = strings.ToLower(strings.TrimSpace(strings.SplitN(m, ";", 2)[0]))
	switch {
	case strings.HasPrefix(m, "text/"), strings.HasSuffix(m, "+json"), strings.HasSuffix(m, "+xml"), strings.HasSuffix(m, "+yaml"):
		return true
	}
	switch m {
	case "application/json", "application/xml", "application/yaml", "application/toml", "application/javascript":
		return true
	}
	return false
}
