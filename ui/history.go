package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
)

// place is where a document was shown: its URI (with the listing row or
// the computer that opened it), the page and the selected element, and
// how to open the document again when it is no longer shown.
type place struct {
	uri       string
	res       *client.Resource
	computer  string
	page      int // 0-based
	elementID string
	el        int
	// target is the file or URL open mode read it from ("" when a
	// server resolved it).
	target string
	// skill is the skill package it is a file of (nil: none), skillRel
	// that file's path in it ("": its SKILL.md).
	skill    *skillPkg
	skillRel string
}

// at is p as an open lands on it.
func (p place) at() *hitPlace {
	return &hitPlace{page: p.page + 1, elementID: p.elementID, el: p.el}
}

// jumpList is the history ctrl+o and ctrl+i walk, as in vim and less:
// back holds the places left (newest last), fwd the places ctrl+o came
// back from. A new jump clears fwd.
type jumpList struct {
	back, fwd []place
	// quiet is set while the screen moves by itself (an open landing, a
	// restore, a reload, a history move in the document): those moves
	// are no jumps.
	quiet bool
	// move is the history move opening another document, while it opens.
	move *historyMove
	// pushes counts the places recorded (a jump happened when it grew).
	pushes int
}

// historyMove is a history move to another document under way: the
// place it goes to, the ops opening it, and which way it went (so a
// failed open puts the history back as it was).
type historyMove struct {
	to   place
	ops  []int
	back bool
}

// maxJumps bounds each side of the history.
const maxJumps = 100

func (j *jumpList) push(p place) {
	if n := len(j.back); n > 0 && samePlace(j.back[n-1], p) {
		return
	}
	j.back = append(j.back, p)
	j.pushes++
	if len(j.back) > maxJumps {
		j.back = j.back[len(j.back)-maxJumps:]
	}
	j.fwd = nil
}

func samePlace(a, b place) bool {
	return a.uri == b.uri && a.page == b.page && a.el == b.el
}

// undo puts a move that did not open back: the place it went to on the
// side it came from, the place it left off the other side.
func (j *jumpList) undo() {
	mv := j.move
	j.move = nil
	from, to := &j.fwd, &j.back
	if mv.back {
		from, to = &j.back, &j.fwd
	}
	if n := len(*to); n > 0 {
		*to = (*to)[:n-1]
	}
	*from = append(*from, mv.to)
}

// arrived reports whether the open that answered with op id is the
// history move under way, and ends the move.
func (j *jumpList) arrived(id int) (place, bool) {
	if j.move == nil || id == 0 {
		return place{}, false
	}
	for _, o := range j.move.ops {
		if o == id {
			to := j.move.to
			j.move = nil
			return to, true
		}
	}
	return place{}, false
}

// failed undoes the move under way when op id was opening it.
func (j *jumpList) failed(id int) {
	if j.move == nil {
		return
	}
	for _, o := range j.move.ops {
		if o == id {
			j.undo()
			return
		}
	}
}

// here is the place the document shows.
func (d *documentScreen) here() place {
	p := place{uri: d.uri, res: d.res, page: d.page, el: d.sel, target: d.target, skill: d.skillFrom, skillRel: d.skillRel}
	if d.res != nil {
		p.computer = d.res.Computer
	} else {
		p.computer = d.op.Access.Computer
	}
	if pg := d.curPage(); pg != nil && d.sel >= 0 && d.sel < len(pg.Elements) {
		p.elementID = pg.Elements[d.sel].ID
	}
	return p
}

// recordJump notes the place the document is leaving: for another page,
// or for another element of this page by a jump (a search hit, :N, an
// #anchor).
func (d *documentScreen) recordJump() {
	if !d.e.jumps.quiet {
		d.e.jumps.push(d.here())
	}
}

// quietly runs f, whose moves are no jumps.
func (e *env) quietly(f func() tea.Cmd) tea.Cmd {
	was := e.jumps.quiet
	e.jumps.quiet = true
	defer func() { e.jumps.quiet = was }()
	return f()
}

// historyKey is ctrl+o (back) and ctrl+i (forward) on the document.
func (d *documentScreen) historyKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := d.e.keys
	j := &d.e.jumps
	back := matches(msg, k.JumpBack)
	if !back && !matches(msg, k.JumpForward) {
		return nil, false
	}
	// A move still opening its document: this key goes on from where
	// that move goes, as if it had opened already (and it is dropped).
	here := d.here()
	mv := j.move
	if mv != nil && !d.e.anyLive(mv.ops) {
		j.undo() // cancelled: the history is as before it
		mv = nil
	}
	if mv != nil {
		here = mv.to
	}
	from, to := &j.fwd, &j.back
	if back {
		from, to = &j.back, &j.fwd
	}
	// The place shown is no step: a document reopened where it was left
	// is in the history as the place it was left.
	for n := len(*from); n > 0 && samePlace((*from)[n-1], here); n = len(*from) {
		*from = (*from)[:n-1]
	}
	if len(*from) == 0 {
		if back {
			return d.e.info("no earlier place in the history"), true
		}
		return d.e.info("no later place in the history"), true
	}
	if mv != nil {
		for _, id := range mv.ops {
			d.e.ops.done(id)
		}
		j.move = nil
	}
	p := (*from)[len(*from)-1]
	*from = (*from)[:len(*from)-1]
	*to = append(*to, here)
	if p.uri == d.uri {
		return d.e.quietly(func() tea.Cmd {
			el := p.el
			if i := d.hitElementOr(p.page, p.elementID); i >= 0 {
				el = i
			}
			return d.gotoPage(min(p.page, max(0, len(d.pages)-1)), el)
		}), true
	}
	j.move = &historyMove{to: p, back: back}
	return d.e.ask(historyOpenMsg{p}), true
}

// historyOpenMsg asks the model to open the document of a history move
// the way it was opened before.
type historyOpenMsg struct{ p place }

// onHistoryOpen opens p's document as it was opened: a skill's file
// through the skill channel, a file or URL open mode read directly,
// anything else by its URI through the office. The ops it starts are
// the move's, so their answer lands on p and a failure undoes the move.
func (m *model) onHistoryOpen(msg historyOpenMsg) tea.Cmd {
	e, p := m.e, msg.p
	first := e.ops.next + 1
	var cmd tea.Cmd
	switch {
	case p.skill != nil && p.skillRel == "":
		cmd = openSkill(e, p.skill.computer, p.skill.ref)
	case p.skill != nil:
		cmd = openSkillFile(e, p.skill, p.skillRel)
	case p.target != "":
		cmd = m.openTarget(p.target, p.at())
	case e.agent != nil:
		cmd = m.openDPE(openURIMsg{uri: p.uri, res: p.res, computer: p.computer, at: p.at()})
	}
	mv := e.jumps.move
	if mv != nil {
		for id := first; id <= e.ops.next; id++ {
			if e.ops.get(id) != nil {
				mv.ops = append(mv.ops, id)
			}
		}
	}
	if mv != nil && len(mv.ops) == 0 {
		e.jumps.undo()
		if cmd == nil {
			return e.info("the earlier document can be opened only through an office")
		}
	}
	return cmd
}

// anyLive reports whether one of the ops is still running.
func (e *env) anyLive(ids []int) bool {
	for _, id := range ids {
		if e.ops.get(id) != nil {
			return true
		}
	}
	return false
}
