package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// SkillAgent is what an Agent also offers when it speaks the skill channel
// (A2C-SMCP 0.3 on: skill.md §7, blob-transfer.md §2). The computer screen
// lists skills only when the agent has it.
type SkillAgent interface {
	// Skills is client:get_skills: the computer's skills in its order.
	Skills(ctx context.Context, computer string) ([]protocol.SkillRef, error)
	// ReadSkillFile is client:get_skill of one file of a skill package
	// (relPath "" is SKILL.md, without its frontmatter), its bytes
	// fetched with client:get_blob when the computer answers with a
	// handle, checked against sha256 and total_size and the budget.
	ReadSkillFile(ctx context.Context, computer, name, relPath string, opt client.SkillFileOptions) (*client.SkillFile, error)
}

// MarkdownFunc converts a Markdown text to a document, as convert does for
// a .md file (cmd injects it: ui does not import convert). name is the
// file's name, for its title.
type MarkdownFunc func(ctx context.Context, name string, body []byte) (PageSource, error)

// Bounds of what a computer's skills may make the UI hold.
const (
	// maxSkillsListed is how many skills one computer's list keeps.
	maxSkillsListed = client.MaxSkills
	// maxSkillLinks bounds the files a SKILL.md links to that are kept.
	maxSkillLinks = 500
	// maxSkillPages bounds the pages of a SKILL.md scanned for links.
	maxSkillPages = 64
)

func (e *env) skillAgent() SkillAgent {
	a, _ := e.agent.(SkillAgent)
	return a
}

func (e *env) skillFileOptions() client.SkillFileOptions {
	return client.SkillFileOptions{MaxBytes: e.opt.MaxSkillFile}
}

// skillsMsg answers a get_skills.
type skillsMsg struct {
	id       int
	computer string
	skills   []protocol.SkillRef
	more     int // skills past maxSkillsListed, dropped
	err      error
}

// loadSkills asks computer for its skills (nil when the agent has no
// skill channel).
func loadSkills(e *env, computer string) (int, tea.Cmd) {
	a := e.skillAgent()
	if a == nil {
		return 0, nil
	}
	timeout := e.opt.RequestTimeout
	return e.start("get_skills "+sanitizeLine(computer), timeout, func(ctx context.Context, id int) tea.Msg {
		skills, err := a.Skills(ctx, computer)
		msg := skillsMsg{id: id, computer: computer, err: err}
		if len(skills) > maxSkillsListed {
			msg.more = len(skills) - maxSkillsListed
			skills = skills[:maxSkillsListed]
		}
		msg.skills = skills
		return msg
	})
}

// skillPkg is an opened skill: where its files are read from and the
// package files its SKILL.md links to.
type skillPkg struct {
	computer string
	ref      protocol.SkillRef
	links    []skillLink
}

// skillLink is one relative link of a SKILL.md: a file of the package.
type skillLink struct {
	text, rel string
}

// relLink is the package path a link of a SKILL.md names, if it names one:
// no scheme, no host, not absolute, not leaving the package; the fragment
// and query are dropped. The computer enforces the same rules (safe_join,
// skill.md §9.2); this only keeps links to other places out of the list.
func relLink(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || u.Path == "" {
		return "", false
	}
	p := path.Clean(u.Path)
	if path.IsAbs(p) || p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

// skillLinks collects the relative links of pages, each path once, in
// reading order.
func skillLinks(pages []*dpe.Page) []skillLink {
	var out []skillLink
	seen := map[string]bool{}
	for _, p := range pages {
		for _, el := range p.Elements {
			var urls, texts []string
			_ = json.Unmarshal(el.Metadata["link_urls"], &urls)
			_ = json.Unmarshal(el.Metadata["link_texts"], &texts)
			for i, u := range urls {
				rel, ok := relLink(u)
				if !ok || seen[rel] || len(out) >= maxSkillLinks {
					continue
				}
				seen[rel] = true
				l := skillLink{rel: rel}
				if i < len(texts) {
					l.text = texts[i]
				}
				out = append(out, l)
			}
		}
	}
	return out
}

// skillURI is how an opened skill file is named on screen and in the
// trace: the skill's name, then the file's path in its package.
func skillURI(name, rel string) string {
	if rel == "" {
		rel = protocol.DefaultSkillFile
	}
	return name + "/" + rel
}

// openSkill reads ref's SKILL.md and shows it as a document: the body
// through the Markdown converter, the frontmatter (as get_skills gives
// it) as the document's metadata. Its pages are converted here, off the
// loop, to find the package files it links to.
func openSkill(e *env, computer string, ref protocol.SkillRef) tea.Cmd {
	a := e.skillAgent()
	if a == nil {
		return nil
	}
	conv, fopt, now, lim := e.opt.ConvertMarkdown, e.skillFileOptions(), e.opt.Now, e.opt.Limits
	uri := skillURI(ref.Name, "")
	_, cmd := e.start("get_skill "+sanitizeLine(ref.Name), openTimeout, func(ctx context.Context, id int) tea.Msg {
		t0 := now()
		f, err := a.ReadSkillFile(ctx, computer, ref.Name, "", fopt)
		if err != nil {
			return errMsg{id: id, err: err}
		}
		if conv == nil {
			// No converter: the Markdown as Markdown.
			return skillFileRead(id, computer, ref.Name, f, now().Sub(t0))
		}
		src, err := conv(ctx, protocol.DefaultSkillFile, f.Data)
		if err != nil {
			return errMsg{id: id, what: "skill " + sanitizeLine(ref.Name) + ": SKILL.md", err: err}
		}
		doc := src.Skeleton()
		if doc == nil {
			return errMsg{id: id, what: "skill " + sanitizeLine(ref.Name) + ": SKILL.md", err: errNoSkeleton}
		}
		skillMetadata(doc, computer, ref)
		buf := &traceBuf{}
		var pages []*dpe.Page
		var first *dpe.Page
		var firstErr error
		for i := range min(len(doc.Pages), maxSkillPages) {
			p, err := convertPage(ctx, src, buf, now, i)
			if i == 0 {
				first, firstErr = p, err
			}
			if err == nil {
				pages = append(pages, p)
			}
		}
		op := &dpe.Opened{Access: dpe.Access{URI: uri, MimeType: f.MimeType, Size: int64(len(f.Data))}, Kind: dpe.KindDocument, Doc: doc, MimeType: f.MimeType}
		return openedMsg{id: id, opened: op, uri: uri, opener: &dpe.Opener{Limits: lim, Now: now}, src: src,
			first: first, firstErr: firstErr, duration: now().Sub(t0), trace: buf.entries,
			skill: &skillPkg{computer: computer, ref: ref, links: skillLinks(pages)}}
	})
	return cmd
}

// skillMetadata puts the skill's frontmatter, as get_skills reported it,
// on the document: name as title, description as summary, tags as
// keywords, the rest as document fields the inspector shows.
func skillMetadata(doc *dpe.Document, computer string, ref protocol.SkillRef) {
	doc.Title, doc.Summary, doc.Keywords, doc.FileType = ref.Name, ref.Description, ref.Tags, "md"
	if doc.Extra == nil {
		doc.Extra = map[string]json.RawMessage{}
	}
	put := func(k string, v any) {
		if b, err := json.Marshal(v); err == nil {
			doc.Extra[k] = b
		}
	}
	put("skill_source", ref.Source)
	put("skill_computer", computer)
	for k, v := range map[string]string{"skill_version": ref.Version, "skill_license": ref.License, "skill_compatibility": ref.Compatibility} {
		if v != "" {
			put(k, v)
		}
	}
	if len(ref.AllowedTools) > 0 {
		put("skill_allowed_tools", ref.AllowedTools)
	}
	if len(ref.SkillMetadata) > 0 && json.Valid(ref.SkillMetadata) {
		doc.Extra["skill_metadata"] = ref.SkillMetadata
	}
}

// openSkillFile reads one file of an opened skill's package: text is
// shown, anything else is offered for saving.
func openSkillFile(e *env, pkg *skillPkg, rel string) tea.Cmd {
	a := e.skillAgent()
	if a == nil {
		return nil
	}
	computer, name, fopt, now, lim := pkg.computer, pkg.ref.Name, e.skillFileOptions(), e.opt.Now, e.opt.Limits
	_, cmd := e.start("get_skill "+sanitizeLine(name)+" "+sanitizeLine(rel), openTimeout, func(ctx context.Context, id int) tea.Msg {
		t0 := now()
		f, err := a.ReadSkillFile(ctx, computer, name, rel, fopt)
		if err != nil {
			return errMsg{id: id, err: err}
		}
		if f.RelPath == "" {
			f.RelPath = rel
		}
		msg := skillFileRead(id, computer, name, f, now().Sub(t0))
		if c := msg.content; c.IsBlob && isImage(c) {
			// An image is previewed as a local MCP image resource is: a
			// one-image document (s saves it there). One that does not
			// decode is offered for saving instead.
			from := fmt.Sprintf("from skill %s on computer %s", sanitizeLine(name), sanitizeLine(computer))
			if img, err := imageDocument(ctx, id, msg.uri, from, c, lim, now); err == nil && img.firstErr == nil {
				img.duration = now().Sub(t0)
				img.skillFrom, img.skillRel = pkg, rel
				return img
			}
		}
		return msg
	})
	return cmd
}

// skillFileRead is a skill file in the shape the content view shows (the
// one a resources/read content has): text by its type, bytes to save
// under the name its path suggests.
func skillFileRead(id int, computer, name string, f *client.SkillFile, d time.Duration) localReadMsg {
	rel := f.RelPath
	if rel == "" {
		rel = protocol.DefaultSkillFile
	}
	uri := skillURI(name, rel)
	c := LocalContent{URI: rel, MIMEType: f.MimeType, FileName: dpe.SuggestFileName(rel, f.MimeType)}
	// A body came inline because it is text; a text file too large to
	// inline comes as a blob and is still shown as text.
	if !f.Blob || (textMIME(f.MimeType) && utf8.Valid(f.Data)) {
		c.Text = string(f.Data)
	} else {
		c.Blob, c.IsBlob = f.Data, true
	}
	// Say what ran: a file the computer answered with a handle came
	// with get_blob (blob-transfer.md §2).
	via := "get_skill"
	if f.Blob {
		via = "get_skill, get_blob"
	}
	return localReadMsg{id: id, uri: uri, content: c, count: 1, opened: localOpened(rel, c), duration: d, via: via,
		from: fmt.Sprintf("from skill %s on computer %s (%s)", sanitizeLine(name), sanitizeLine(computer), via)}
}

// skillFilesScreen lists the package files a SKILL.md links to; enter
// reads one with get_skill (rel_path).
type skillFilesScreen struct {
	e    *env
	pkg  *skillPkg
	list rowList
}

func newSkillFilesScreen(e *env, pkg *skillPkg) *skillFilesScreen {
	return &skillFilesScreen{e: e, pkg: pkg}
}

func (v *skillFilesScreen) Update(msg tea.Msg) (screen, tea.Cmd) {
	key, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return v, nil
	}
	k := v.e.keys
	n := len(v.pkg.links)
	if v.list.key(k, key, n) {
		return v, nil
	}
	switch {
	case matches(key, k.Back, k.Left):
		return v, v.e.ask(popMsg{})
	case matches(key, k.Enter, k.Right) && n > 0:
		return v, openSkillFile(v.e, v.pkg, v.pkg.links[min(v.list.cur, n-1)].rel)
	}
	return v, nil
}

func (v *skillFilesScreen) View(w, h int) []string {
	st := v.e.st
	out := []string{st.title.Render(clip(" Files of skill "+sanitizeLine(v.pkg.ref.Name)+" linked from its SKILL.md", w))}
	if len(v.pkg.links) == 0 {
		return append(out, "", st.dim.Render(clip("  SKILL.md links to no other file of its package.", w)))
	}
	cols := []column{{"PATH", max(10, (w-4)*45/100)}, {"LINK TEXT", 0}}
	cols[1].width = max(6, w-4-cols[0].width)
	out = append(out, "  "+st.colHead.Render(joinCols(cols, colHeader(cols))))
	from, to := v.list.shown(len(v.pkg.links))
	for i := from; i < to && len(out) < h; i++ {
		l := v.pkg.links[i]
		out = append(out, listRow(st, joinCols(cols, []string{sanitizeLine(l.rel), sanitizeLine(l.text)}), v.list.at(i), false, w))
	}
	return out
}

// arrange fits the rows under the title and the column header.
func (v *skillFilesScreen) arrange(_, h int) { v.list.layout(len(v.pkg.links), h-2) }

func (v *skillFilesScreen) Keys() screenKeys {
	k := v.e.keys
	if len(v.pkg.links) == 0 {
		// Nothing to read.
		return screenKeys{short: []key2{k.Back}, full: [][]key2{{k.Back}, k.globalKeys()}}
	}
	return screenKeys{
		short: []key2{withHelp(k.Enter, "read file"), k.Back, k.Up, k.Down},
		full:  [][]key2{k.navKeys(), {withHelp(k.Enter, "read file")}, k.globalKeys()},
	}
}

func (v *skillFilesScreen) Crumb() string { return "linked files" }

// textMIME is skill.md §6.4's test of a text type: text/*, a +json, +xml
// or +yaml suffix, or JSON, XML, YAML, TOML or JavaScript.
func textMIME(mt string) bool {
	mt = baseMIME(mt)
	switch mt {
	case "application/json", "application/xml", "application/yaml", "application/toml", "application/javascript":
		return true
	}
	return strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") || strings.HasSuffix(mt, "+yaml")
}
