package main

import (
	"os"
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
		`Cc: Alice Example \<alice@example.org\>, bob@example.org` + "\n",
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

// find matches a mail's header fields as the message shows them: the
// sender's name ("duty officer" finds From: Duty Officer <duty@…>, whose
// element text is the address alone), the header's name with a value
// ("cc smith"), and the subject by "subject". A Cc display name with a
// comma, quoted, stays one address with its name, in find and in get;
// get prints the three addresses of the one Cc on one line.
func TestFind_MailHeaderFieldsByNameAndValue(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"rota.eml", "message.eml"} {
		raw, err := os.ReadFile(filepath.Join(realFixtures, name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, name), string(raw))
	}
	for _, c := range []struct{ query, want string }{
		{`"duty officer"`, "From: Duty Officer <duty@example.org>"},
		{"cc smith", "Cc: Smith, Jo <jo@example.org>"},
		{"müller", "Cc: Jörg Müller <jm@example.org>"},
		{"subject rota", "Subject: Pump rota for the weekend"},
	} {
		// The first hit is the header field; words are ORed, so another
		// mail's Subject may follow for "subject rota".
		code, out, errOut := runCLI(t, "find", c.query, "--docs", dir, "--timeout", "2m")
		first, _, _ := strings.Cut(out, "\n")
		if code != exitOK || !strings.Contains(first, "rota.eml") || !strings.HasSuffix(first, "\t"+c.want) {
			t.Errorf("find %s: exit %d, want the first hit in rota.eml reading %q:\n%s%s", c.query, code, c.want, out, errOut)
		}
	}
	code, out, errOut := runCLI(t, "get", "--format", "text", filepath.Join(realFixtures, "rota.eml"))
	if code != exitOK {
		t.Fatalf("get: exit %d: %s", code, errOut)
	}
	// One Cc line, as the message has it, the name with a comma quoted
	// so the addresses stay apart; it printed a Cc: line per address.
	if want := "\nCc: \"Smith, Jo\" <jo@example.org>, Jörg Müller <jm@example.org>, bob@example.org\n"; !strings.Contains(out, want) || strings.Count(out, "Cc:") != 1 {
		t.Errorf("get lacks the one line %q:\n%s", want, out)
	}
}
