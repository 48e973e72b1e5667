package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// serve --convert-timeout is the deadline of each conversion (the
// converter's own, the one every read and the Finder's index have): a
// document of 3,000,000 tiny paragraphs, seconds of parsing, is that
// document's error naming the deadline, while the other documents are
// served. A zero deadline, here or on --find-timeout, on serve, computer
// and mcp alike, is a usage error.
func TestServe_ConvertTimeoutIsEachDocumentsDeadline(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "guide.md"), []byte("# Guide\n\nStill here.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeHostile(t, "docx-tiny-paragraphs.docx", filepath.Join(dir, "slow.docx"))
	logFile := filepath.Join(t.TempDir(), "serve.log")
	url := startServe(t, "--docs", dir, "--convert-timeout", "300ms", "--find-timeout", "1s", "--log", logFile)
	code, out, errOut := runCLI(t, "get", "dpe://io.github.dpetui.library/slow.docx", "--url="+url, "--format", "text")
	if code == exitOK || !strings.Contains(errOut, "slow.docx cannot be converted") || !strings.Contains(errOut, "conversion time") {
		t.Errorf("get slow.docx: exit %d\n%.300s%.300s", code, out, errOut)
	}
	// The cause is the node's to log (a peer's details never reach the
	// agent's screen).
	logs, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(logs), "slow.docx: conversion time in milliseconds over the limit: ") || !strings.Contains(string(logs), " > 300") {
		t.Errorf("the serve log does not name the deadline:\n%.2000s", logs)
	}
	code, out, errOut = runCLI(t, "get", "dpe://io.github.dpetui.library/guide.md", "--url="+url, "--format", "text")
	if code != exitOK || !strings.Contains(out, "Still here.") {
		t.Errorf("get guide.md: exit %d\n%s%s", code, out, errOut)
	}
	for _, args := range [][]string{
		{"serve", "--convert-timeout", "0s"},
		{"serve", "--find-timeout", "0s"},
		{"mcp", "--convert-timeout", "0s"},
		{"mcp", "--find-timeout", "-1s"},
		{"computer", "--url", "http://127.0.0.1:1", "--office", "o", "--name", "n", "--docs", dir, "--convert-timeout", "0s"},
		{"computer", "--url", "http://127.0.0.1:1", "--office", "o", "--name", "n", "--docs", dir, "--find-timeout", "0s"},
	} {
		if code, _, errOut := runCLI(t, args...); code != exitUsage || !strings.Contains(errOut, "must be > 0") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}
