// Command gen writes the benchmark documents of issue 5.
//
//	go run ./internal/docgen/gen -kind large -out /tmp/a.json
//	go run ./internal/docgen/gen -kind manifest -out /tmp/a-manifest   (a folder)
//	go run ./internal/docgen/gen -kind wide -out /tmp/b.json
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/dpe-tui/dpe-tui/internal/docgen"
)

func main() {
	kind := flag.String("kind", "large", "large, manifest or wide")
	out := flag.String("out", "", "output file (folder for manifest)")
	pages := flag.Int("pages", 2000, "pages of the large document")
	rows := flag.Int("rows", 10000, "rows of the wide table")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gen: -out is required")
		os.Exit(2)
	}
	if err := write(*kind, *out, *pages, *rows); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func write(kind, out string, pages, rows int) error {
	switch kind {
	case "manifest":
		p, err := docgen.WriteLargeManifest(out, docgen.LargeOptions{Pages: pages})
		if err == nil {
			fmt.Println(p)
		}
		return err
	case "large", "wide":
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		if kind == "large" {
			return docgen.WriteLarge(f, docgen.LargeOptions{Pages: pages})
		}
		return docgen.WriteWideTable(f, rows, 12)
	}
	return fmt.Errorf("unknown kind %q", kind)
}
