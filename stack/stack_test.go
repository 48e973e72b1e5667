package stack

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	"github.com/dpe-tui/dpe-tui/internal/testbudget"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// startDemo brings up the real server, computers and libraries in-process on
// 127.0.0.1 and joins an agent.
func startDemo(t *testing.T, opt Options) (*Stack, *client.Client) {
	t.Helper()
	// The agent's requests, the server's cap on them and the computers'
	// MCP calls run to the test's deadline: these tests wait for answers,
	// they do not time them (the first get_dpe of the generated manual
	// missed a fixed 20 s on a loaded machine).
	budget := 20 * time.Second
	if d, ok := t.Deadline(); ok {
		budget = max(budget, time.Until(d)/2).Truncate(time.Second) // whole seconds: it is sent as "timeout"
	}
	if opt.MaxRequestTimeout == 0 {
		opt.MaxRequestTimeout = budget
	}
	if opt.ComputerRequestTimeout == 0 {
		opt.ComputerRequestTimeout = budget
	}
	ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, 60*time.Second))
	t.Cleanup(cancel)
	st, err := Start(ctx, opt)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	if !strings.HasPrefix(st.URL, "http://127.0.0.1:") {
		t.Fatalf("stack URL %q is not loopback", st.URL)
	}
	c, err := client.Dial(ctx, client.Options{URL: st.URL, Office: st.Office, Name: "e2e-agent", RequestTimeout: budget})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return st, c
}

func TestStack_AgentSeesBothComputersAndTheirServers(t *testing.T) {
	_, c := startDemo(t, Options{})
	ctx := context.Background()
	comps, err := c.Computers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, s := range comps {
		names[s.Name] = s.A2CVersion
	}
	for _, want := range []string{ComputerAlpha, ComputerBeta} {
		if v, ok := names[want]; !ok || v != protocol.Version {
			t.Errorf("list_room: computer %s missing or wrong version %q (got %v)", want, v, names)
		}
	}
	cfg, err := c.Config(ctx, ComputerAlpha)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range cfg.Servers {
		got = append(got, s.Name)
	}
	if strings.Join(got, ",") != "library,notes" {
		t.Errorf("alpha servers = %v, want [library notes]", got)
	}
}

func TestStack_ResourcesPageThroughAtLeastFiveCursors(t *testing.T) {
	_, c := startDemo(t, Options{})
	ctx := context.Background()
	p := c.Pager(ComputerAlpha, ServerNotes, client.PagerOptions{})
	pages, total := 0, 0
	seen := map[string]bool{}
	for {
		page, err := p.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("page %d: %v", pages+1, err)
		}
		pages++
		for _, r := range page.Resources {
			if seen[r.URI] {
				t.Fatalf("resource %s listed twice", r.URI)
			}
			seen[r.URI] = true
			total++
		}
		if p.Done() {
			break
		}
	}
	if pages < 5 {
		t.Errorf("notes took %d cursor pages, want ≥ 5", pages)
	}
	if total < 250 {
		t.Errorf("notes listed %d resources, want ≥ 250", total)
	}
	if p.Loaded() != total {
		t.Errorf("pager Loaded()=%d, counted %d", p.Loaded(), total)
	}
}

// firstDPE returns the first dpe:// resource of a server whose name contains
// want (or any when want is empty).
func firstDPE(t *testing.T, c *client.Client, computer, server, want string) client.Resource {
	t.Helper()
	p := c.Pager(computer, protocol.ServerKey(server), client.PagerOptions{})
	for {
		page, err := p.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Resources {
			if r.IsDPE() && strings.Contains(strings.ToLower(r.URI), want) {
				return r
			}
		}
		if p.Done() {
			break
		}
	}
	t.Fatalf("no dpe resource matching %q on %s/%s", want, computer, server)
	return client.Resource{}
}

func TestStack_GetDPEFetchesFileAndHTTPAccessURIs(t *testing.T) {
	for _, resolver := range []string{"file", "http"} {
		t.Run(resolver, func(t *testing.T) {
			st, c := startDemo(t, Options{Resolver: resolver})
			r := firstDPE(t, c, ComputerAlpha, ServerLibrary, "")
			acc, err := c.GetDPE(context.Background(), ComputerAlpha, r.URI)
			if err != nil {
				t.Fatal(err)
			}
			scheme := map[string]string{"file": "file://", "http": "http://127.0.0.1:"}[resolver]
			if !strings.HasPrefix(acc.URI, scheme) {
				t.Fatalf("access URI %q, want prefix %q", acc.URI, scheme)
			}
			op := &dpe.Opener{Resolver: c.Resolver(ComputerAlpha), Fetcher: &dpe.Fetcher{AllowFile: true}}
			opened, err := op.Open(context.Background(), r.URI)
			if err != nil {
				t.Fatal(err)
			}
			if opened.Kind != dpe.KindDocument || len(opened.Doc.Pages) == 0 {
				t.Fatalf("opened %s: kind %v, %d pages", r.URI, opened.Kind, len(opened.Doc.Pages))
			}
			_ = st
		})
	}
}

func TestStack_ManifestPagesFetchLazily(t *testing.T) {
	_, c := startDemo(t, Options{Resolver: "http"})
	r := firstDPE(t, c, ComputerAlpha, ServerLibrary, "station-operations-manual")
	var fetches []string
	op := &dpe.Opener{Resolver: c.Resolver(ComputerAlpha), Fetcher: &dpe.Fetcher{}, OnTrace: func(e dpe.TraceEvent) {
		if e.Kind == "fetch_page" {
			fetches = append(fetches, e.URI)
		}
	}}
	ctx := context.Background()
	opened, err := op.Open(ctx, r.URI)
	if err != nil {
		t.Fatal(err)
	}
	d := opened.Doc
	if len(d.Pages) < 2 || d.Pages[1].URI == "" || d.Pages[1].Decoded {
		t.Fatalf("large document not in manifest mode: %d pages, page 2 uri %q decoded %v", len(d.Pages), d.Pages[1].URI, d.Pages[1].Decoded)
	}
	if len(fetches) != 0 {
		t.Fatalf("pages fetched before asked: %v", fetches)
	}
	if err := op.LoadPageInto(ctx, opened, 1); err != nil {
		t.Fatal(err)
	}
	if !d.Pages[1].Decoded || len(d.Pages[1].Elements) == 0 {
		t.Fatalf("page 2 not loaded: %+v", d.Pages[1])
	}
	if len(fetches) != 1 {
		t.Errorf("page fetches = %v, want exactly one", fetches)
	}
}

func TestStack_ExpiredHTTPURLIsRefusedAndAFreshGetDPEWorks(t *testing.T) {
	// The resolver's clock runs in server goroutines: skew it atomically.
	var skew atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	_, c := startDemo(t, Options{Resolver: "http", ResolverTTL: time.Minute, Now: clock})
	r := firstDPE(t, c, ComputerAlpha, ServerLibrary, "")
	ctx := context.Background()
	acc, err := c.GetDPE(ctx, ComputerAlpha, r.URI)
	if err != nil {
		t.Fatal(err)
	}
	if acc.ExpiresAt.IsZero() || acc.ETag == "" {
		t.Fatalf("http access lacks expires_at/etag: %+v", acc)
	}
	f := &dpe.Fetcher{}
	if _, err := f.Fetch(ctx, acc.URI); err != nil {
		t.Fatalf("fresh URL refused: %v", err)
	}
	// Two minutes later the URL has expired: the resolver refuses it ...
	skew.Store(int64(2 * time.Minute))
	if _, err := f.Fetch(ctx, acc.URI); err == nil {
		t.Fatal("expired URL was served")
	}
	// ... and the opener, seeing it expired, calls get_dpe again once.
	calls := 0
	res := dpe.ResolverFunc(func(ctx context.Context, uri string) (dpe.Access, error) {
		calls++
		if calls == 1 {
			return acc, nil // the stale one
		}
		return c.GetDPE(ctx, ComputerAlpha, uri)
	})
	op := &dpe.Opener{Resolver: res, Fetcher: f, Now: clock}
	if _, err := op.Open(ctx, r.URI); err != nil {
		t.Fatalf("open after expiry: %v", err)
	}
	if calls != 2 {
		t.Errorf("get_dpe calls = %d, want 2 (stale, then fresh)", calls)
	}
}

// TestStack_ClosedAgentFreesTheOfficeAtOnce: one agent per office, and a
// script runs one command after another: an agent that closed must not
// still hold the office when the next one joins.
func TestStack_ClosedAgentFreesTheOfficeAtOnce(t *testing.T) {
	st, first := startDemo(t, Options{})
	first.Close()
	for i := 0; i < 10; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), testbudget.Left(t, 20*time.Second))
		c, err := client.Dial(ctx, client.Options{URL: st.URL, Office: st.Office, Name: "script", ConnectTimeout: 10 * time.Second})
		cancel()
		if err != nil {
			t.Fatalf("agent %d right after the previous one closed: %v", i+1, err)
		}
		c.Close()
	}
}
