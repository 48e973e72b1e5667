package client

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func TestGetDPE_DecodesAccessHints(t *testing.T) {
	tests := []struct {
		name    string
		ack     string
		wantErr string
		check   func(t *testing.T, uri, mime string, size int64, exp time.Time, etag string)
	}{
		{name: "all hints", ack: `{"uri":"http://x/a","mime_type":"application/json","size":42,"_meta":{"expires_at":"2026-01-02T03:04:05Z","etag":"e1"},"req_id":"r"}`,
			check: func(t *testing.T, uri, mime string, size int64, exp time.Time, etag string) {
				if uri != "http://x/a" || mime != "application/json" || size != 42 || etag != "e1" ||
					!exp.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
					t.Errorf("got %s %s %d %v %s", uri, mime, size, exp, etag)
				}
			}},
		{name: "no hints: size -1, no expiry", ack: `{"uri":"file:///a"}`,
			check: func(t *testing.T, _, _ string, size int64, exp time.Time, _ string) {
				if size != -1 || !exp.IsZero() {
					t.Errorf("size %d exp %v", size, exp)
				}
			}},
		{name: "expiry with offset and fraction", ack: `{"uri":"file:///a","_meta":{"expires_at":"2026-01-02T03:04:05.5+08:00"}}`,
			check: func(t *testing.T, _, _ string, _ int64, exp time.Time, _ string) {
				if !exp.Equal(time.Date(2026, 1, 1, 19, 4, 5, 5e8, time.UTC)) {
					t.Errorf("exp %v", exp)
				}
			}},
		{name: "bad expiry is not 'never expires'", ack: `{"uri":"file:///a","size":"x","_meta":{"expires_at":"tomorrow"}}`,
			check: func(t *testing.T, _, _ string, size int64, exp time.Time, _ string) {
				if size != -1 || exp.IsZero() || time.Since(exp) > time.Minute {
					t.Errorf("size %d exp %v, want an expiry of about now", size, exp)
				}
			}},
		{name: "missing uri is an error", ack: `{"mime_type":"x"}`, wantErr: "the answer has no access uri"},
		{name: "4011 is a protocol error", ack: `{"code":4011,"message":"DPE Resolver Not Configured","uri":"dpe://h/d"}`, wantErr: "dpe://h/d cannot be opened: computer box has no DPE resolver configured (4011)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fakeClient(t, func(ev string, p map[string]any) []any {
				if ev != protocol.EventGetDPE || p["uri"] != "dpe://h/d" || p["computer"] != "box" || p["agent"] != "agent" {
					t.Errorf("request %s %v", ev, p)
				}
				return jsonArgs(t, tt.ack)
			})
			acc, err := c.GetDPE(context.Background(), "box", "dpe://h/d")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if acc.Computer != "box" || len(acc.RawJSON) == 0 {
				t.Errorf("computer %q raw %s", acc.Computer, acc.RawJSON)
			}
			tt.check(t, acc.URI, acc.MimeType, acc.Size, acc.ExpiresAt, acc.ETag)
		})
	}
}

// office answers list_room with computers and get_dpe per computer.
func office(t *testing.T, answers map[string]string, asked *[]string) *Client {
	return fakeClient(t, func(ev string, p map[string]any) []any {
		switch ev {
		case protocol.EventListRoom:
			var sessions []string
			for name := range answers {
				sessions = append(sessions, `{"sid":"s-`+name+`","name":"`+name+`","role":"computer","office_id":"office-a"}`)
			}
			sessions = append(sessions, `{"sid":"s-agent","name":"agent","role":"agent"}`)
			return jsonArgs(t, `{"sessions":[`+strings.Join(sessions, ",")+`]}`)
		case protocol.EventGetDPE:
			comp := p["computer"].(string)
			*asked = append(*asked, comp)
			return jsonArgs(t, answers[comp])
		case protocol.EventGetConfig:
			// No listing names a host: ChooseComputer falls back to asking.
			return jsonArgs(t, `{"servers":{},"inputs":[]}`)
		}
		t.Fatalf("unexpected %s", ev)
		return nil
	})
}

const (
	okAnswer      = `{"uri":"file:///doc"}`
	noServer4014  = `{"code":4014,"message":"MCP Server Not Found","mcp_server_name":"h"}`
	generic4013   = `{"code":4013,"message":"DPE Resolution Failed"}`
	upstream4013  = `{"code":4013,"message":"DPE Resolution Failed","category":"upstream_unavailable"}`
	resolver4011  = `{"code":4011,"message":"DPE Resolver Not Configured"}`
	dpeURIForTest = "dpe://io.example.docs/report"
)

func TestChooseComputer_Rules(t *testing.T) {
	tests := []struct {
		name      string
		answers   map[string]string
		want      string
		wantAsked []string
		wantCode  int
	}{
		{name: "single computer is used even when it fails", answers: map[string]string{"solo": resolver4011}, want: "solo", wantAsked: []string{"solo"}, wantCode: 4011},
		{name: "skips 4014 until one answers", answers: map[string]string{"a": noServer4014, "b": okAnswer, "c": okAnswer}, want: "b", wantAsked: []string{"a", "b"}},
		{name: "4013 without category means no server here", answers: map[string]string{"a": generic4013, "b": okAnswer}, want: "b", wantAsked: []string{"a", "b"}},
		{name: "4013 with a category is that computer's answer", answers: map[string]string{"a": upstream4013, "b": okAnswer}, want: "a", wantAsked: []string{"a"}, wantCode: 4013},
		{name: "nobody serves the host", answers: map[string]string{"a": noServer4014, "b": noServer4014}, wantAsked: []string{"a", "b"}, wantCode: 4014},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			c := office(t, tt.answers, &asked)
			got, acc, err := c.ChooseComputer(context.Background(), dpeURIForTest)
			if got != tt.want || strings.Join(asked, ",") != strings.Join(tt.wantAsked, ",") {
				t.Errorf("chose %q after asking %v; want %q after %v", got, asked, tt.want, tt.wantAsked)
			}
			if tt.wantCode == 0 {
				if err != nil || acc.URI != "file:///doc" || acc.Computer != tt.want {
					t.Fatalf("acc %+v err %v", acc, err)
				}
				return
			}
			var perr *protocol.Error
			if !errors.As(err, &perr) || perr.Code != tt.wantCode {
				t.Fatalf("err = %v, want code %d", err, tt.wantCode)
			}
			if tt.want != "" && !strings.Contains(err.Error(), "computer "+tt.want) {
				t.Errorf("error %q does not say which computer answered", err)
			}
			if tt.want == "" && !strings.Contains(err.Error(), "no computer in office office-a serves host io.example.docs (asked a, b)") {
				t.Errorf("message = %q", err)
			}
		})
	}
}

func TestChooseComputer_EmptyOfficeSaysSo(t *testing.T) {
	var asked []string
	c := office(t, map[string]string{}, &asked)
	_, _, err := c.ChooseComputer(context.Background(), dpeURIForTest)
	if err == nil || !strings.Contains(err.Error(), "no computer in office office-a") {
		t.Fatalf("err = %v", err)
	}
}

func TestResolver_FixedComputerAndStickyChoice(t *testing.T) {
	var asked []string
	c := office(t, map[string]string{"a": noServer4014, "b": okAnswer}, &asked)
	fixed := c.Resolver("a")
	if _, err := fixed.Resolve(context.Background(), dpeURIForTest); err == nil {
		t.Fatal("fixed resolver on computer a should report a's 4014")
	}
	asked = nil
	r := c.Resolver("")
	for range 2 {
		acc, err := r.Resolve(context.Background(), dpeURIForTest)
		if err != nil || acc.Computer != "b" {
			t.Fatalf("acc %+v err %v", acc, err)
		}
	}
	// First resolve tries a then b; the re-resolve goes straight to b.
	if strings.Join(asked, ",") != "a,b,b" {
		t.Errorf("asked %v, want a,b,b", asked)
	}
}
