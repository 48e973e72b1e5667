package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// get of a forwarded message (Python's email package) prints the named
// header fields, the <br> lines as Markdown hard breaks, the attached
// original as a page of its own and the CSV and DOCX attachments
// converted onto further pages; the attachment list says where each is.
func TestGet_MailAttachmentsArePages(t *testing.T) {
	code, out, errOut := runCLI(t, "get", "--format", "md", filepath.Join(realFixtures, "forwarded.eml"))
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	at := 0
	for _, w := range []string{
		"# Fwd: Night shift report",
		`From: Duty Officer \<duty@example.org\>`,
		`Cc: Alice Example \<alice@example.org\>`,
		"Summary:\\\npumps 1-3 running\\\nfilter 2 offline",
		"- Night shift report (message/rfc822, 304 bytes, page 2)",
		"- readings.csv (text/csv, 32 bytes, page 3)",
		"- steps.docx (application/vnd.openxmlformats-officedocument.wordprocessingml.document,",
		"- dump.bin (application/octet-stream, 256 bytes)\n",
		"<!-- Page 2: Night shift report -->",
		`From: Night Operator \<night@example.org\>`,
		"Filter 2 was backwashed at 03:10.",
		"<!-- Page 3: readings.csv",
		"| 03:00 | 38.2 |",
		"<!-- Page 4: steps.docx",
		"1. Collect\n2. Upload\n   1. Check the checksum\n3. Archive",
	} {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Fatalf("%q missing (or out of order) in:\n%s", w, out)
		}
		at += i + len(w)
	}
}
