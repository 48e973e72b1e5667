package main

import (
	"fmt"
	"io"
	"sync"

	"charm.land/bubbles/v2/progress"
	"charm.land/lipgloss/v2"
)

// pushOutput is what push shows while it runs. On a terminal (stderr) a
// bubbles progress bar stands on the last line and only the documents
// that changed or failed get a line above it; otherwise each of those
// gets one line as it finishes, and an unchanged document is only counted
// in the summary (all: a line for every document). Workers call it
// concurrently.
type pushOutput struct {
	mu             sync.Mutex
	stdout, stderr io.Writer
	tty            bool // stderr is a terminal: draw the bar
	all            bool // a line for unchanged documents too (-v)
	bar            progress.Model
	label          string
	n, total       int
	drawn          bool
}

func newPushOutput(stdout, stderr io.Writer, noColor bool) *pushOutput {
	o := &pushOutput{stdout: stdout, stderr: stderr, tty: isTerminal(stderr)}
	opts := []progress.Option{progress.WithWidth(40)}
	if noColor {
		opts = append(opts, progress.WithFillCharacters('#', '.'), progress.WithColors(lipgloss.NoColor{}))
	}
	o.bar = progress.New(opts...)
	return o
}

// start begins a phase of total steps ("converting", "sending").
func (o *pushOutput) start(label string, total int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.label, o.n, o.total = label, 0, total
	o.draw()
}

func (o *pushOutput) step() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.n++
	o.draw()
}

// result prints one document's line (an error on stderr) and steps.
func (o *pushOutput) result(r pushResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.n++
	quiet := !o.all && r.err == nil && (r.status == "unchanged" || r.status == "not sent")
	if !quiet {
		w := o.stdout
		if r.err != nil {
			w = o.stderr
		}
		o.print(w, resultLine(r))
	}
	o.draw()
}

// line prints s above the bar.
func (o *pushOutput) line(w io.Writer, s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.print(w, s)
	o.draw()
}

// done removes the bar.
func (o *pushOutput) done() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.clear()
}

func (o *pushOutput) print(w io.Writer, s string) {
	o.clear()
	fmt.Fprintln(w, s)
}

func (o *pushOutput) clear() {
	if o.drawn {
		io.WriteString(o.stderr, "\r\x1b[2K")
		o.drawn = false
	}
}

func (o *pushOutput) draw() {
	if !o.tty || o.total == 0 {
		return
	}
	o.clear()
	lipgloss.Fprint(o.stderr, barLine(o.bar, o.label, o.n, o.total))
	o.drawn = true
}

// barLine is the bar's one line: the phase, the bar, n of total.
func barLine(bar progress.Model, label string, n, total int) string {
	return fmt.Sprintf("%-10s %s %d/%d", label, bar.ViewAs(float64(n)/float64(max(total, 1))), n, total)
}
