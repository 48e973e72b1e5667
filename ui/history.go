package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/dpe-tui/dpe-tui/client"
)

// place is where a document was shown: its URI (with the listing row or
// the computer that opened it), the page and the selected element.
type place struct {
	uri       string
	res       *client.Resource
	computer  string
	page      int // 0-based
	elementID string
	el        int
}

// jumpList is the history ctrl+o and ctrl+i walk, as in vim and less:
// back holds the places left (newest last), fwd the places ctrl+o came
// back from. A new jump clears fwd.
type jumpList struct {
	back, fwd []place
	// moving is set while a history move opens another document, so
	// that open does not record the place it leaves as a new jump.
	moving bool
}

// maxJumps bounds each side of the history.
const maxJumps = 100

func (j *jumpList) push(p place) {
	if n := len(j.back); n > 0 && samePlace(j.back[n-1], p) {
		return
	}
	j.back = append(j.back, p)
	if len(j.back) > maxJumps {
		j.back = j.back[len(j.back)-maxJumps:]
	}
	j.fwd = nil
}

func samePlace(a, b place) bool {
	return a.uri == b.uri && a.page == b.page && a.el == b.el
}

// here is the place the document shows.
func (d *documentScreen) here() place {
	p := place{uri: d.uri, res: d.res, page: d.page, el: d.sel}
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

// recordJump notes the place the document is leaving for another page.
func (d *documentScreen) recordJump() {
	if !d.e.jumps.moving {
		d.e.jumps.push(d.here())
	}
}

// historyKey is ctrl+o (back) and ctrl+i (forward) on the document.
func (d *documentScreen) historyKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := d.e.keys
	j := &d.e.jumps
	var from, to *[]place
	switch {
	case matches(msg, k.JumpBack):
		from, to = &j.back, &j.fwd
	case matches(msg, k.JumpForward):
		from, to = &j.fwd, &j.back
	default:
		return nil, false
	}
	if len(*from) == 0 {
		if from == &j.back {
			return d.e.info("no earlier place in the history"), true
		}
		return d.e.info("no later place in the history"), true
	}
	p := (*from)[len(*from)-1]
	*from = (*from)[:len(*from)-1]
	*to = append(*to, d.here())
	if p.uri == d.uri {
		j.moving = true
		defer func() { j.moving = false }()
		el := p.el
		if i := d.hitElementOr(p.page, p.elementID); i >= 0 {
			el = i
		}
		return d.gotoPage(min(p.page, max(0, len(d.pages)-1)), el), true
	}
	if d.e.agent == nil {
		return d.e.info("the earlier document can be opened only through an office"), true
	}
	j.moving = true
	return d.e.ask(openURIMsg{uri: p.uri, res: p.res, computer: p.computer,
		at: &hitPlace{page: p.page + 1, elementID: p.elementID}}), true
}

// hitElementOr is hitElement on page i when i is a page, else -1.
func (d *documentScreen) hitElementOr(i int, id string) int {
	if i < 0 || i >= len(d.pages) {
		return -1
	}
	return d.hitElement(i, id)
}
