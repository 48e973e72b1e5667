package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Nothing the converters write violates the checker: check --strict
// (warnings fail too) passes on every file the reference tools made in
// convert/testdata.
func TestCheckStrict_EveryFixture(t *testing.T) {
	entries, err := os.ReadDir(realFixtures)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasSuffix(name, ".golden") {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "check", "--strict", filepath.Join(realFixtures, name))
			if code != exitOK {
				t.Errorf("check --strict: exit %d\n%s\n%s", code, out, errOut)
			}
		})
	}
	if n < 20 {
		t.Fatalf("%d fixtures, want the whole corpus (≥ 20)", n)
	}
}
