package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/dpe-tui/dpe-tui/internal/hostilepeer"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// The hostile-peer suite drives the real ls and get commands against a
// scripted hostile server and its computers (internal/hostilepeer). Each
// case checks the exact message, ends in bounded time, and leaves no
// goroutine behind.

func hostile(t *testing.T, script hostilepeer.Script) *hostilepeer.Server {
	t.Helper()
	// Registered first, so it runs after every other cleanup.
	t.Cleanup(func() {
		goleak.VerifyNone(t,
			goleak.IgnoreCurrent(),
			goleak.IgnoreTopFunction("github.com/zishang520/socket.io/v3/pkg/utils.SetInterval.func1"),
			goleak.IgnoreTopFunction("github.com/zishang520/socket.io/v3/pkg/utils.SetTimeout.func1"),
		)
	})
	srv, err := hostilepeer.Start(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// runBounded is runCLI with a deadline: a hang fails the test instead of
// the whole run.
func runBounded(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runWithin(t, time.Minute, args...)
}

func TestHostile_300MBAckToLsComputers(t *testing.T) {
	const ack = 300 << 20
	srv := hostile(t, hostilepeer.Script{
		ListRoom: func() hostilepeer.Reply { return hostilepeer.Reply{Stream: hostilepeer.HugeStream(ack)} },
	})
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, out, errOut := runBounded(t, "ls", "computers", "--url="+srv.URL, "--max-ack=4MiB")
	runtime.ReadMemStats(&after)
	want := "dpe-tui: list computers: server:list_room: the answer is over the ack size limit of 4 MiB; dropped the connection instead of reading it\n"
	if code != exitRuntime || errOut != want {
		t.Fatalf("exit %d, stderr %q\nwant %q", code, errOut, want)
	}
	if out != "" {
		t.Errorf("stdout %q", out)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > ack/6 {
		t.Errorf("allocated %d MiB for a refused %d MiB ack", d>>20, ack>>20)
	}
}

func TestHostile_EndlessFreshCursorsInLs(t *testing.T) {
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "evil", Servers: []string{"pit"}, Resources: hostilepeer.EndlessCursors("org.evil.pit", 10),
	}}})
	code, out, errOut := runBounded(t, "ls", "resources", "--url="+srv.URL, "--max-pages=50")
	if want := "dpe-tui: resources of pit on evil: stopped at the cap of 50 pages (500 resources loaded, more remain)\n"; code != exitRuntime || errOut != want {
		t.Fatalf("exit %d, stderr %q\nwant %q", code, errOut, want)
	}
	// Streamed: every row of the 50 pages was printed, under the header
	// (printed again where the URI column widened: doc-10, doc-100).
	if n, h := strings.Count(out, "dpe://org.evil.pit/doc-"), strings.Count(out, "COMPUTER"); n != 500 || h != 3 || !strings.Contains(out, "dpe://org.evil.pit/doc-499") {
		t.Errorf("%d rows and %d headers printed, want 500 and 3", n, h)
	}
	if n := srv.CallsTo("evil", protocol.EventGetResources); n != 50 {
		t.Errorf("%d get_resources calls, want 50", n)
	}

	code, _, errOut = runBounded(t, "ls", "resources", "--url="+srv.URL, "--max-resources=120", "--json")
	if want := "dpe-tui: resources of pit on evil: stopped at the budget of 120 resources after 12 pages (more remain)\n"; code != exitRuntime || errOut != want {
		t.Fatalf("budget: exit %d, stderr %q\nwant %q", code, errOut, want)
	}
}

func TestHostile_MegabyteCursorAndName(t *testing.T) {
	big := strings.Repeat("N", 1<<20)
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "evil", Servers: []string{"pit"},
		Resources: func(string, string) hostilepeer.Reply {
			return hostilepeer.Page(strings.Repeat("C", 1<<20), hostilepeer.Resource("dpe://org.evil.pit/a", big))
		},
	}}})
	code, out, errOut := runBounded(t, "ls", "resources", "--url="+srv.URL, "--json")
	if want := "dpe-tui: resources of pit on evil: refused a next_cursor of 1048576 bytes (limit 4096); the listing stops here\n"; code != exitRuntime || errOut != want {
		t.Fatalf("exit %d, stderr %q\nwant %q", code, errOut, want)
	}
	var row map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &row); err != nil {
		t.Fatalf("one JSON row expected: %v (%d bytes)", err, len(out))
	}
	name, _ := row["name"].(string)
	if len(name) != 64<<10+len("…[truncated]") || !strings.HasSuffix(name, "…[truncated]") {
		t.Errorf("name of %d bytes, want the 64 KiB cut with its marker", len(name))
	}
}

// The computer that sorts first claims every host (it answers get_dpe for
// anything with a local secret); the typed URI still goes to the computer
// whose server lists its host, and get says which one answered.
func TestHostile_ComputerSortingFirstClaimsEveryHost(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "report.dpe.json")
	if err := os.WriteFile(doc, []byte(`{"doc_ref":"report","title":"Report","page_count":1,"pages":[{"page_index":0,"elements":[{"element_id":"e1","category":"Title","text":"Quarterly"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	evil := hostilepeer.Computer{Name: "0evil", Servers: []string{"trap"},
		Resources: func(string, string) hostilepeer.Reply {
			return hostilepeer.Page("", hostilepeer.Resource("dpe://org.evil.trap/x", "x"))
		},
		GetDPE: func(string) hostilepeer.Reply { return hostilepeer.Access("file:///etc/passwd") }}
	alpha := hostilepeer.Computer{Name: "alpha", Servers: []string{"docs"},
		Resources: func(string, string) hostilepeer.Reply {
			return hostilepeer.Page("", hostilepeer.Resource("dpe://org.example.docs/report", "report"))
		},
		GetDPE: func(string) hostilepeer.Reply { return hostilepeer.Access("file://" + filepath.ToSlash(doc)) }}
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{evil, alpha}})

	code, out, errOut := runBounded(t, "get", "dpe://org.example.docs/report", "--url="+srv.URL, "--allow-file-uri="+dir, "--format=text")
	if code != exitOK || !strings.Contains(out, "Quarterly") || strings.Contains(out, "root:") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if want := "dpe-tui: dpe://org.example.docs/report resolved by computer alpha\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	if n := srv.CallsTo("0evil", protocol.EventGetDPE); n != 0 {
		t.Errorf("0evil was asked get_dpe %d times", n)
	}

	// When it lists the host too, nobody is chosen for the user.
	evil.Resources = func(string, string) hostilepeer.Reply {
		return hostilepeer.Page("", hostilepeer.Resource("dpe://org.example.docs/report", "mine"))
	}
	srv2 := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{evil, alpha}})
	code, _, errOut = runBounded(t, "get", "dpe://org.example.docs/report", "--url="+srv2.URL)
	if want := "dpe-tui: open dpe://org.example.docs/report: host org.example.docs is listed by computers 0evil, alpha in office demo; choose one (--computer)\n"; code != exitRuntime || errOut != want {
		t.Errorf("exit %d, stderr %q\nwant %q", code, errOut, want)
	}
}

// A loopback server proves nothing about its computers: a file:// access
// URI from one dpe-tui did not start is refused, naming the flag.
func TestHostile_FileURIFromExternalComputer(t *testing.T) {
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "0evil", Servers: []string{"docs"},
		Resources: func(string, string) hostilepeer.Reply {
			return hostilepeer.Page("", hostilepeer.Resource("dpe://org.evil.docs/x", "x"))
		},
		GetDPE: func(string) hostilepeer.Reply { return hostilepeer.Access("file:///etc/passwd") },
	}}})
	for _, format := range []string{"text", "json"} {
		code, out, errOut := runBounded(t, "get", "dpe://org.evil.docs/x", "--url="+srv.URL, "--format="+format)
		want := "dpe-tui: open dpe://org.evil.docs/x: refused file:///etc/passwd from computer 0evil: file:// access URIs are accepted only from computers dpe-tui started, or with --allow-file-uri\n"
		if code != exitRuntime || errOut != want || out != "" {
			t.Fatalf("--format %s: exit %d, stdout %q, stderr %q\nwant %q", format, code, out, errOut, want)
		}
	}
}

// A FIFO named by a file:// URI is refused at once, even with
// --allow-file-uri; opening it would block until a writer came.
func TestHostile_FIFOUnderAllowFileURI(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "doc.dpe.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	srv := hostile(t, hostilepeer.Script{Computers: []hostilepeer.Computer{{
		Name: "0evil", Servers: []string{"docs"},
		Resources: func(string, string) hostilepeer.Reply {
			return hostilepeer.Page("", hostilepeer.Resource("dpe://org.evil.docs/x", "x"))
		},
		GetDPE: func(string) hostilepeer.Reply { return hostilepeer.Access("file://" + filepath.ToSlash(fifo)) },
	}}})
	code, _, errOut := runBounded(t, "get", "dpe://org.evil.docs/x", "--url="+srv.URL, "--allow-file-uri")
	want := "dpe-tui: open dpe://org.evil.docs/x: fetch file://" + fifo + ": file:// access URI refused: not a regular file (a FIFO)\n"
	if code != exitRuntime || errOut != want {
		t.Fatalf("exit %d, stderr %q\nwant %q", code, errOut, want)
	}
	// A FIFO and a /proc file given straight to get are refused by the one
	// local-file rule, in the words convert and check use.
	code, _, errOut = runBounded(t, "get", fifo)
	if want := "dpe-tui: " + fifo + ": not a regular file (a FIFO)\n"; code != exitRuntime || errOut != want {
		t.Errorf("get FIFO: exit %d, stderr %q\nwant %q", code, errOut, want)
	}
	code, _, errOut = runBounded(t, "get", "/proc/self/environ")
	if want := "dpe-tui: /proc/self/environ: not a regular file (/proc is a pseudo-filesystem)\n"; code != exitRuntime || errOut != want {
		t.Errorf("get /proc: exit %d, stderr %q\nwant %q", code, errOut, want)
	}
}

// get --format json keeps the data exact and the stream inert: C1 and
// bidi code points become \u escapes, not replacement text.
func TestGet_JSONEscapesC1AndBidi(t *testing.T) {
	p := filepath.Join(t.TempDir(), "doc.dpe.json")
	doc := "{\"doc_ref\":\"d\",\"title\":\"a\u009b31mb\u009dc\u202ed\u2066e\",\"page_count\":1,\"pages\":[{\"page_index\":0,\"elements\":[{\"element_id\":\"e1\",\"category\":\"Title\",\"text\":\"x\u0085y\u200fz\"}]}]}"
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"get", p, "--format=json"}, {"get", p, "--format=json", "--page=1"}} {
		code, out, errOut := runBounded(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d %s", args, code, errOut)
		}
		assertNoControls(t, out)
		var got, orig any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: not JSON: %v", args, err)
		}
		if len(args) == 3 {
			_ = json.Unmarshal([]byte(doc), &orig)
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(orig)
			if !bytes.Equal(a, b) {
				t.Errorf("data changed:\n%s\n%s", a, b)
			}
			for _, esc := range []string{`\u009b`, `\u009d`, `\u202e`, `\u2066`} {
				if !strings.Contains(out, esc) {
					t.Errorf("output lacks %s", esc)
				}
			}
		} else if !strings.Contains(out, `x\u0085y\u200fz`) {
			t.Errorf("page JSON %q", out)
		}
	}
}

// A peer's 200 KB error message: the terminal gets one line of about a
// kilobyte that says where the rest is, and the --log file the whole
// message (sanitized, one line), through the real command.
func TestHostile_LongPeerErrorWholeInTheLog(t *testing.T) {
	msg := "evil says " + strings.Repeat("x", 200_000) + " END-OF-MESSAGE"
	srv := hostile(t, hostilepeer.Script{
		ListRoom: func() hostilepeer.Reply { return hostilepeer.Error(500, msg) },
	})
	logFile := filepath.Join(t.TempDir(), "agent.log")
	code, _, errOut := runBounded(t, "ls", "computers", "--url="+srv.URL, "--log", logFile)
	if code == exitOK || len(errOut) > 2*maxErrorCells || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "whole in "+logFile) {
		t.Errorf("exit %d, %d bytes on stderr: %.300q", code, len(errOut), errOut)
	}
	logs, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(logs), "END-OF-MESSAGE") || !strings.Contains(string(logs), strings.Repeat("x", 200_000)) {
		t.Errorf("the log lacks the whole message (%d bytes)", len(logs))
	}
}
