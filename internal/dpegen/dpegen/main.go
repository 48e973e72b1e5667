// Command dpegen writes the benchmark documents of docs/performance.md:
//
//	go run ./internal/dpegen/dpegen -preset a -o /tmp/a.json
//	go run ./internal/dpegen/dpegen -preset a -manifest -o /tmp/a-manifest   # doc.json + page-N.json
//	go run ./internal/dpegen/dpegen -preset b -o /tmp/b.json
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dpe-tui/dpe-tui/internal/dpegen"
)

func main() {
	preset := flag.String("preset", "a", "a (50 MB, 2000 pages) or b (10000×12 table)")
	manifest := flag.Bool("manifest", false, "write doc.json plus page-N.json into the -o directory")
	out := flag.String("o", "", "output file (or directory with -manifest)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "dpegen: -o is required")
		os.Exit(2)
	}
	var o dpegen.Options
	switch *preset {
	case "a":
		o = dpegen.PresetA()
	case "b":
		o = dpegen.PresetB()
	default:
		fmt.Fprintf(os.Stderr, "dpegen: unknown preset %q (want a or b)\n", *preset)
		os.Exit(2)
	}
	if err := write(o, *manifest, *out); err != nil {
		fmt.Fprintln(os.Stderr, "dpegen:", err)
		os.Exit(1)
	}
}

func write(o dpegen.Options, manifest bool, out string) error {
	if !manifest {
		return os.WriteFile(out, dpegen.Document(o), 0o644)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	doc, pages := dpegen.Manifest(o, func(i int) string { return fmt.Sprintf("page-%d.json", i) })
	for i, p := range pages {
		if err := os.WriteFile(filepath.Join(out, fmt.Sprintf("page-%d.json", i)), p, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(out, "doc.json"), doc, 0o644)
}
