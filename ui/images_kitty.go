package ui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/render"
)

// How previews reach the screen (Options.Images): "kitty" transmits each
// decoded preview once with the kitty graphics protocol and draws
// Unicode placeholder cells, which are plain text to the Bubble Tea
// renderer, so diffing and scrolling keep working; "blocks" draws
// half-blocks; "sixel" is drawn as blocks (see render.ImagesSixel for
// why); "off" draws none; "" or "auto" asks the terminal at start and
// uses kitty when it answers the graphics query, blocks otherwise. Only
// our own encoder's output (decode, scale, re-encode as PNG) is sent.

// imageQueryTimeout bounds the start-up query: a terminal that does not
// answer in time gets blocks.
const imageQueryTimeout = 150 * time.Millisecond

// kittyQueryID is the image id of the start-up query (a=q stores nothing).
const kittyQueryID = 31

// imageQuery is the start-up terminal query's state: pending until an
// answer or the timeout; da1 once DA1 arrived, after which no graphics
// answer can follow (a terminal answers in order).
type imageQuery struct {
	pending, da1 bool
}

type imageQueryTimeoutMsg struct{}

// imageModeOf maps Options.Images to the renderer's mode and whether the
// terminal must be asked.
func imageModeOf(opt string) (mode string, ask bool) {
	switch strings.ToLower(strings.TrimSpace(opt)) {
	case "", "auto":
		return render.ImagesBlocks, true
	case render.ImagesKitty:
		return render.ImagesKitty, false
	case render.ImagesOff:
		return render.ImagesOff, false
	}
	return render.ImagesBlocks, false // blocks, sixel (see render.ImagesSixel)
}

// startImageQuery sets the renderer's mode from the options and, for
// auto, sends the kitty graphics query followed by DA1: every terminal
// answers DA1, in order, so a DA1 reply with no graphics reply before it
// means no kitty graphics. Nothing waits for the answers: blocks are drawn
// until a graphics OK arrives, and imageQueryTimeout ends the wait for a
// terminal that answers nothing (a graphics OK later than that, from a
// slow link, still switches to kitty: it is the terminal's word).
func (m *model) startImageQuery() tea.Cmd {
	mode, ask := imageModeOf(m.e.opt.Images)
	m.e.renderer.SetImageMode(mode)
	if !ask {
		return nil
	}
	m.imgQuery.pending = true
	q := ansi.KittyGraphics([]byte("AAAA"), "i="+itoa(kittyQueryID), "s=1", "v=1", "a=q", "t=d", "f=24")
	return tea.Batch(tea.Raw(q+ansi.RequestPrimaryDeviceAttributes),
		tea.Tick(imageQueryTimeout, func(time.Time) tea.Msg { return imageQueryTimeoutMsg{} }))
}

// onImageQuery handles the terminal's answers to startImageQuery; ok is
// false for any other message.
func (m *model) onImageQuery(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case uv.KittyGraphicsEvent:
		if msg.Options.ID != kittyQueryID {
			return nil, true // an answer we did not ask for (q=2 silences ours)
		}
		if !m.imgQuery.da1 && string(msg.Payload) == "OK" && m.e.renderer.ImageMode() != render.ImagesKitty {
			m.imgQuery.pending = false
			m.e.renderer.SetImageMode(render.ImagesKitty)
			return m.broadcast(imageModeMsg{}), true
		}
		m.imgQuery.pending = false
		return nil, true
	case uv.PrimaryDeviceAttributesEvent:
		// Sixel (attribute 4) would be next, but is drawn as blocks.
		m.imgQuery.pending, m.imgQuery.da1 = false, true
		return nil, true
	case imageQueryTimeoutMsg:
		m.imgQuery.pending = false
		return nil, true
	}
	return nil, false
}

// imageModeMsg tells screens the image mode changed.
type imageModeMsg struct{}

type kittyEncodedMsg struct {
	gen, page, el int
	ptr           *dpe.Element
	k             render.KittyImage
	seq           string
	err           error
}

// kittyEncode transmits a decoded preview: the encoding runs in the
// command, the escape sequence goes out from Update (tea.Raw).
func (d *documentScreen) kittyEncode(page, idx int, el *dpe.Element, pr render.Preview) tea.Cmd {
	l := &d.images
	if pr.Thumb == nil || l.kittyNext >= render.MaxKittyID {
		return nil
	}
	l.kittyNext++
	id, gen := l.kittyNext, l.gen
	_, cw := d.layout(d.e.width)
	cols, rows := render.PreviewCells(pr.Thumb, max(cw-2, 1))
	img := pr.Thumb
	return d.e.safe(0, func() tea.Msg {
		seq, err := render.KittyTransmit(id, img, cols, rows)
		return kittyEncodedMsg{gen: gen, page: page, el: idx, ptr: el, k: render.KittyImage{ID: id, Cols: cols, Rows: rows}, seq: seq, err: err}
	})
}

func (d *documentScreen) onKittyEncoded(msg kittyEncodedMsg) tea.Cmd {
	l := &d.images
	if msg.gen != l.gen || msg.err != nil || msg.page >= len(d.pages) || d.pages[msg.page].p == nil {
		return nil
	}
	p := d.pages[msg.page].p
	if msg.el >= len(p.Elements) || p.Elements[msg.el] != msg.ptr {
		return nil
	}
	pr, ok := l.probed[msg.page][msg.el]
	if !ok || pr.Thumb == nil {
		return nil
	}
	pr.Kitty = msg.k
	l.probed[msg.page][msg.el] = pr
	l.kittyIDs = append(l.kittyIDs, msg.k.ID)
	d.e.renderer.SetPreview(msg.ptr, pr)
	if msg.page == d.page {
		d.invalidate()
	}
	return tea.Raw(d.images.takeKittyDeletes() + msg.seq)
}

// kittyAll transmits every decoded preview not sent yet (the mode became
// kitty after they were decoded).
func (d *documentScreen) kittyAll() tea.Cmd {
	if d.e.renderer.ImageMode() != render.ImagesKitty {
		return nil
	}
	var cmds []tea.Cmd
	for page, byIdx := range d.images.probed {
		if page >= len(d.pages) || d.pages[page].p == nil {
			continue
		}
		for idx, pr := range byIdx {
			if pr.Thumb != nil && pr.Kitty.ID == 0 && idx < len(d.pages[page].p.Elements) {
				cmds = append(cmds, d.kittyEncode(page, idx, d.pages[page].p.Elements[idx], pr))
			}
		}
	}
	return tea.Batch(cmds...)
}

// takeKittyDeletes returns the delete sequences of the images of closed
// documents, once.
func (l *imageLoader) takeKittyDeletes() string {
	var b strings.Builder
	for _, id := range l.kittyDrop {
		b.WriteString(render.KittyDelete(id))
	}
	l.kittyDrop = nil
	return b.String()
}

// closeImages deletes this document's images from the terminal (a=d):
// the screen is closing.
func (d *documentScreen) closeImages() tea.Cmd {
	l := &d.images
	l.kittyDrop = append(l.kittyDrop, l.kittyIDs...)
	l.kittyIDs = nil
	if s := l.takeKittyDeletes(); s != "" {
		return tea.Raw(s)
	}
	return nil
}

// imageCloser is a screen whose terminal images must be deleted when it
// closes.
type imageCloser interface{ closeImages() tea.Cmd }

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return string(b[i:])
}
