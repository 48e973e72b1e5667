package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/dpe-tui/dpe-tui/client"
	"github.com/dpe-tui/dpe-tui/dpe"
	dpes3 "github.com/dpe-tui/dpe-tui/dpe/s3"
	"github.com/dpe-tui/dpe-tui/sanitize"
	"github.com/dpe-tui/dpe-tui/stack"
)

// target is where a command's agent connects: a real server, or the demo
// stack started in this process on a free loopback port.
type target struct {
	URL    string
	URLs   []string // further servers of the office (--url repeated): failover
	Office string
	demo   *stack.Stack
}

func (t *target) Close() {
	if t.demo != nil {
		t.demo.Close()
	}
}

// resolveTarget starts the embedded demo when no --url was given.
func resolveTarget(ctx context.Context, g *globalFlags, log *slog.Logger) (*target, error) {
	if err := g.configReady(); err != nil {
		return nil, err // the demo too: a broken profile must not be skipped silently
	}
	if g.URL != "" {
		if _, err := url.Parse(g.URL); err != nil {
			return nil, usageErrorf("--url %q: invalid URL", sanitize.URL(g.URL))
		}
		return &target{URL: g.URL, URLs: g.URLs[1:], Office: g.Office}, nil
	}
	if g.Embedded.active() {
		return startEmbedded(ctx, g, log) // the user's own servers and folders
	}
	st, err := stack.Start(ctx, stack.Options{Office: g.Office, Logger: log, A2CVersion: demoVersion(g.A2CVersion), Notice: g.Embedded.notice})
	if err != nil {
		return nil, fmt.Errorf("start embedded demo: %w", err)
	}
	return &target{URL: st.URL, Office: st.Office, demo: st}, nil
}

func clientOptions(g *globalFlags, t *target, log *slog.Logger) client.Options {
	var key []byte
	if t.demo != nil {
		// Only the computers this process started may hand out file://
		// URIs without --allow-file-uri; they prove it with this key.
		key = t.demo.OriginKey()
	}
	return client.Options{
		OwnComputerKey: key,
		MaxAckBytes:    int64(g.MaxAck),
		URL:            t.URL,
		URLs:           t.URLs,
		Office:         t.Office,
		Name:           g.Name,
		APIKey:         g.apiKey(),
		Path:           g.Path,
		Version:        g.A2CVersion,
		ConnectTimeout: time.Duration(g.Timeout), // --timeout bounds connecting too
		RequestTimeout: time.Duration(g.Timeout),
		InsecureTLS:    g.Insecure,
		Logger:         log,
	}
}

// plainKeyWarning is what to say when an API key will cross the network in
// clear: over http:// (or ws://) to a host that is not loopback.
func plainKeyWarning(g *globalFlags) string {
	if g.APIKey == "" && g.keyFrom == nil {
		return ""
	}
	for _, u := range g.URLs {
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "ws") {
			continue
		}
		if loopbackAddr(net.JoinHostPort(pu.Hostname(), "0")) {
			continue
		}
		return fmt.Sprintf("the API key goes over plain %s to %s, which is not a loopback address: anyone on the path can read it (use https://)",
			pu.Scheme, sanitize.Line(pu.Host))
	}
	return ""
}

// serveExposureWarning is what serve says when it listens beyond loopback
// without an API key.
func serveExposureWarning(addr, apiKey string) string {
	if apiKey != "" || loopbackAddr(addr) {
		return ""
	}
	return "serve listens beyond loopback without --api-key: anyone who reaches it can join its offices and read every document"
}

// dial connects and joins.
func dial(ctx context.Context, g *globalFlags, t *target, log *slog.Logger) (*client.Client, error) {
	if t.demo == nil {
		if err := g.resolveAPIKey(ctx); err != nil {
			return nil, err
		}
	}
	c, err := client.Dial(ctx, clientOptions(g, t, log))
	var je *client.JoinError
	switch {
	case errors.As(err, &je) && je.AgentSeatTaken():
		// The refusal names the office; what it leaves out is who holds
		// the seat and what to do.
		return nil, fmt.Errorf("office %s: %w; another agent holds the office (a dpe-tui left open?): close it or pass another --office", t.Office, err)
	case err != nil:
		return nil, fmt.Errorf("office %s: %w", t.Office, err) // the error names the redacted URL
	}
	return c, nil
}

// fetcher applies the user's file:// grant: --allow-file-uri[=ROOT] lets
// any computer hand out file:// URIs (under ROOT). Without it only the
// computers dpe-tui started may (client.Options.OwnComputerKey), whatever
// the server: any local process can join a loopback office as a computer,
// so a loopback server proves nothing. serverURL is no longer consulted.
func fetcher(g *globalFlags, serverURL string) *dpe.Fetcher {
	_ = serverURL
	f := &dpe.Fetcher{
		MaxBytes:    dpe.DefaultLimits().MaxBytes,
		Timeout:     2 * time.Minute,
		IdleTimeout: 30 * time.Second,
		S3:          dpes3.Reader{},
	}
	if g.Insecure {
		f.HTTP = insecureHTTPClient()
	}
	switch {
	case g.allowFileSet && g.AllowFile != "" && g.AllowFile != "1":
		f.AllowFile, f.FileRoot = true, g.AllowFile
	case g.allowFileSet:
		f.AllowFile = true
	}
	return f
}

func insecureHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // only with the explicit --insecure flag
	return &http.Client{Transport: tr}
}
