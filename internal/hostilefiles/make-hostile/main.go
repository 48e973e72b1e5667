// Command make-hostile writes every hostile file of package hostilefiles
// into a directory, for a manual run: `go run
// ./internal/hostilefiles/make-hostile DIR`, then `dpe-tui serve --docs
// DIR` or `dpe-tui convert DIR/FILE`.
package main

import (
	"fmt"
	"os"

	"github.com/dpe-tui/dpe-tui/internal/hostilefiles"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: make-hostile DIR")
		os.Exit(2)
	}
	if err := os.MkdirAll(os.Args[1], 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "make-hostile:", err)
		os.Exit(1)
	}
	for _, f := range hostilefiles.All() {
		if err := hostilefiles.WriteFile(os.Args[1]+"/"+f.Name, f); err != nil {
			fmt.Fprintln(os.Stderr, "make-hostile:", err)
			os.Exit(1)
		}
		fmt.Printf("%-28s %s (stopped by: %s)\n", f.Name, f.Why, f.Limit)
	}
}
