package ui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// skillsPane is the computer screen's second list: the computer's skills
// (get_skills) under its MCP servers. tab or moving past the last server
// puts the cursor in it.
type skillsPane struct {
	skills []protocol.SkillRef
	more   int // skills over maxSkillsListed, not kept
	err    string
	done   bool
	// op is the get_skills in flight (0: none).
	op int
	// pane is where the cursor is: 0 the servers, 1 the skills.
	pane int
	list rowList
}

func (p *skillsPane) install(msg skillsMsg) {
	p.op, p.done = 0, true
	if msg.err != nil {
		p.err = peerSentence(msg.err)
		return
	}
	p.skills, p.more, p.err = msg.skills, msg.more, ""
}

// peerSentence is a section's failure in one line. The section is titled
// and names the computer: the peer's own sentence ("computer c does not
// implement client:get_skills") says the rest, without the wrapping, and
// never its details.
func peerSentence(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) && strings.TrimSpace(pe.Message) != "" {
		return oneLine(errors.New(pe.Message))
	}
	return oneLine(err)
}

// loadSkills asks for the computer's skills when the agent speaks the
// skill channel.
func (v *serversScreen) loadSkills() tea.Cmd {
	if v.sk.op != 0 {
		return nil
	}
	id, cmd := loadSkills(v.e, v.computer)
	v.sk.op = id
	return cmd
}

// visibleSkills are the skills the filter keeps (name, source,
// description, tags).
func (v *serversScreen) visibleSkills() []int {
	f := foldKey(v.list.filter)
	out := make([]int, 0, len(v.sk.skills))
	for i, s := range v.sk.skills {
		if f == "" || strings.Contains(foldKey(s.Name+" "+s.Source+" "+s.Description+" "+strings.Join(s.Tags, " ")), f) {
			out = append(out, i)
		}
	}
	return out
}

// skillsHeight is how many lines the skills section takes of h: a blank
// line, its title and its column header, then the rows, at most half the
// screen.
func (v *serversScreen) skillsHeight(h int) int {
	if v.e.skillAgent() == nil {
		return 0
	}
	rows := max(1, len(v.visibleSkills()))
	return max(0, min(3+rows, h/2))
}

// settlePane puts the cursor where there is something to choose: on the
// skills when no server is listed (the servers list would take enter and
// do nothing), back on the servers when no skill is. Called from Update
// whenever either list changes.
func (v *serversScreen) settlePane() {
	servers, skills := len(v.visible()), len(v.visibleSkills())
	switch {
	case v.sk.pane == 0 && servers == 0 && skills > 0 && (v.cfg != nil || v.err != ""):
		v.sk.pane = 1
	case v.sk.pane == 1 && skills == 0, v.sk.pane == paneDesktop && len(v.dk.windows) == 0:
		v.sk.pane = 0
	}
}

// skillKey handles the keys that move between the two lists and those of
// the skills list; ok is false for a key it leaves to the servers list.
func (v *serversScreen) skillKey(msg tea.KeyPressMsg, servers int) (tea.Cmd, bool) {
	e := v.e
	k := e.keys
	vis := v.visibleSkills()
	if v.sk.pane == paneDesktop {
		return nil, false
	}
	if v.sk.pane == 0 {
		switch {
		case len(vis) > 0 && matches(msg, k.Down) && (servers == 0 || v.list.cur >= servers-1):
			v.sk.pane, v.sk.list.cur = 1, 0
			return nil, true
		}
		return nil, false
	}
	if len(vis) == 0 {
		v.sk.pane = 0
		return nil, false
	}
	switch {
	case matches(msg, k.Up) && v.sk.list.cur == 0 && servers > 0:
		v.sk.pane = 0
		return nil, true
	case v.sk.list.key(k, msg, len(vis)):
		return nil, true
	case matches(msg, k.Enter, k.Right):
		if v.gone {
			return e.info("computer " + sanitizeLine(v.computer) + " left the office · esc goes back"), true
		}
		return openSkill(e, v.computer, v.sk.skills[vis[min(v.sk.list.cur, len(vis)-1)]]), true
	}
	return nil, false
}

// skillsView is the skills section, exactly skillsHeight(h) lines.
func (v *serversScreen) skillsView(w, h int) []string {
	n := v.skillsHeight(h)
	if n == 0 {
		return nil
	}
	st := v.e.st
	title := "SKILLS"
	switch {
	case v.sk.op != 0 && !v.sk.done:
		title += " · " + v.e.spin.View() + " asking for them…"
	case v.sk.err == "" && v.sk.done:
		title += " · " + counted(len(v.sk.skills), "skill", "skills")
		if v.sk.more > 0 {
			title += fmt.Sprintf(" (and %d more not kept)", v.sk.more)
		}
	}
	out := []string{"", " " + st.label.Render(clip(title, w-1))}
	if n < 3 {
		return out[:n]
	}
	cols := v.skillColumns(w)
	vis := v.visibleSkills()
	switch {
	case v.sk.err != "":
		return append(out, "  "+st.dim.Render(clip("none listed: "+sanitizeLine(v.sk.err), w-2)), "")
	case v.sk.done && len(v.sk.skills) == 0:
		return append(out, "  "+st.dim.Render(clip(sanitizeLine(v.computer)+" has no skills installed.", w-2)), "")
	case v.sk.done && len(vis) == 0:
		return append(out, "  "+st.dim.Render(clip(fmt.Sprintf("No skill matches %q.", sanitizeLine(v.list.filter)), w-2)), "")
	case !v.sk.done:
		return append(out, "", "")
	}
	out = append(out, "  "+st.colHead.Render(joinCols(cols, colHeader(cols))))
	from, to := v.sk.list.shown(len(vis))
	for i := from; i < to && len(out) < n; i++ {
		s := v.sk.skills[vis[i]]
		row := joinCols(cols, []string{sanitizeLine(s.Name), sanitizeLine(s.Source), sanitizeLine(s.Version),
			sanitizeLine(strings.Join(s.Tags, ", ")), sanitizeLine(s.Description)})
		out = append(out, listRow(st, row, v.sk.pane == 1 && v.sk.list.at(i), v.gone, w))
	}
	return out
}

// skillColumns sizes the name, source and tags columns to what they hold,
// each capped at a share of the width, and gives the description the rest.
func (v *serversScreen) skillColumns(w int) []column {
	cols := []column{{"NAME", 4}, {"SOURCE", 6}, {"VERSION", 7}, {"TAGS", 4}, {"DESCRIPTION", 0}}
	for _, s := range v.sk.skills {
		cols[0].width = max(cols[0].width, ansi.StringWidth(sanitizeLine(s.Name)))
		cols[1].width = max(cols[1].width, ansi.StringWidth(sanitizeLine(s.Source)))
		cols[2].width = max(cols[2].width, ansi.StringWidth(sanitizeLine(s.Version)))
		cols[3].width = max(cols[3].width, ansi.StringWidth(sanitizeLine(strings.Join(s.Tags, ", "))))
	}
	rest := w - 2 - 4*2
	for i, share := range []int{22, 12, 10, 14} {
		cols[i].width = min(cols[i].width, max(4, rest*share/100))
	}
	cols[4].width = max(6, rest-cols[0].width-cols[1].width-cols[2].width-cols[3].width)
	return cols
}
