package main

import (
	"fmt"
	"io"
	"strings"

	mango "github.com/muesli/mango-cobra"
	"github.com/muesli/roff"
	"github.com/spf13/cobra"

	"github.com/dpe-tui/dpe-tui/ui"
)

// rootDescription is what dpe-tui is, as the root's --help and the man
// page's DESCRIPTION say it.
const rootDescription = "dpe-tui browses DPE documents over A2C-SMCP: a terminal UI, and headless commands for scripts.\n" +
	"Without --url it starts an embedded demo office in-process."

// manCmd prints the man page of every command, from the same commands
// and flags as --help.
func manCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "man",
		Short:   "Print the man page (roff) of dpe-tui and every command",
		Example: "  dpe-tui man > dpe-tui.1\n  dpe-tui man | man -l -",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			page, err := manPage(cmd.Root())
			if err != nil {
				return err
			}
			_, err = io.WriteString(cmd.OutOrStdout(), page)
			return err
		},
	}
}

// manPage is the commands and flags as mango lays them out, then EXIT
// STATUS from the one exit-code table and KEYS from the keymap, as roff
// tagged paragraphs: the help's pre-wrapped table, given to man as text,
// was filled into broken lines.
func manPage(root *cobra.Command) (string, error) {
	page, err := mango.NewManPage(1, root)
	if err != nil {
		return "", fmt.Errorf("man page: %w", err)
	}
	page.WithLongDescription(rootDescription)
	var b strings.Builder
	b.WriteString(page.Build(roff.NewDocument()))
	b.WriteString(".SH EXIT STATUS\n")
	for _, e := range exitCodes {
		fmt.Fprintf(&b, ".TP\n.B %d\n%s\n", e.code, roffText(e.meaning))
	}
	b.WriteString(".SH KEYS\n.PP\n" + roffText("The browser's keys, from the keymap its footer and ? screen are drawn from; "+
		"a key means what its screen's ? says. [keys] in config.toml rebinds an action by the name in brackets.") + "\n")
	for _, r := range ui.KeyRows() {
		keys := r.Key
		if len(r.Also) > 0 {
			keys += " (also " + strings.Join(r.Also, ", ") + ")"
		}
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roffText(keys), roffText(r.Desc+" ["+r.Action+"]"))
	}
	return b.String(), nil
}

// roffText is s as one roff text line: a backslash printed as itself,
// and a line that would start with a control character ('.' or ')
// escaped, so no text is read as a request.
func roffText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
