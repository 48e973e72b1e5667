package protocol

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeError_FlatPayloadWithCodeSpecificFields(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Error
	}{
		{"4008 versions", `{"code":4008,"message":"Protocol version mismatch","server_version":"0.2.0","client_version":"0.1.5","min_supported":"0.2.0","max_supported":"0.2.999"}`,
			Error{Code: 4008, Message: "Protocol version mismatch", ServerVersion: "0.2.0", ClientVersion: "0.1.5", MinSupported: "0.2.0", MaxSupported: "0.2.999"}},
		{"4011 uri", `{"code":4011,"message":"DPE Resolver Not Configured","uri":"dpe://a.b/c"}`,
			Error{Code: 4011, Message: "DPE Resolver Not Configured", URI: "dpe://a.b/c"}},
		{"4012 reason", `{"code":4012,"message":"Invalid DPE URI","uri":"dpe://host","reason":"missing doc-ref"}`,
			Error{Code: 4012, Message: "Invalid DPE URI", URI: "dpe://host", Reason: "missing doc-ref"}},
		{"4013 category", `{"code":4013,"message":"DPE Resolution Failed","category":"upstream_unavailable","uri":"dpe://a/b"}`,
			Error{Code: 4013, Message: "DPE Resolution Failed", Category: "upstream_unavailable", URI: "dpe://a/b"}},
		{"4014 mcp_server_name", `{"code":4014,"message":"MCP Server not registered","mcp_server_name":"docs"}`,
			Error{Code: 4014, Message: "MCP Server not registered", MCPServerName: "docs"}},
		{"4014 mcp_server alias", `{"code":4014,"message":"x","mcp_server":"docs"}`,
			Error{Code: 4014, Message: "x", MCPServerName: "docs"}},
		{"4015 capability", `{"code":4015,"message":"m","mcp_server_name":"s","capability":"resources"}`,
			Error{Code: 4015, Message: "m", MCPServerName: "s", Capability: "resources"}},
		{"404", `{"code":404,"message":"computer c not found"}`, Error{Code: 404, Message: "computer c not found"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, form := range []any{[]byte(tt.in), decodeMap(t, tt.in)} {
				got, ok := DecodeError(form)
				if !ok {
					t.Fatalf("DecodeError(%T) = not an error", form)
				}
				got.Details, got.Extra = nil, nil
				if !reflect.DeepEqual(*got, tt.want) {
					t.Errorf("got %+v, want %+v", *got, tt.want)
				}
			}
		})
	}
}

func decodeMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDecodeError_NotAnErrorPayload(t *testing.T) {
	for _, in := range []any{
		nil, "", []byte(`{"uri":"file:///x","req_id":"1"}`), []byte(`[1,2]`),
		map[string]any{"code": "4013", "message": "x"}, map[string]any{"code": 4013.5, "message": "x"},
		map[string]any{"code": float64(404)}, 42,
	} {
		if e, ok := DecodeError(in); ok {
			t.Errorf("DecodeError(%v) = %+v, want not an error", in, e)
		}
	}
}

func TestError_DetailsNeverShown(t *testing.T) {
	e, ok := DecodeError([]byte(`{"code":4013,"message":"DPE Resolution Failed","category":"resolver_error","uri":"dpe://a/b","details":{"resolver_exception":"SECRET-stack at 10.0.0.7"}}`))
	if !ok {
		t.Fatal("not decoded")
	}
	if len(e.Details) == 0 {
		t.Fatal("details should be kept for logs")
	}
	if s := e.Error(); strings.Contains(s, "SECRET") || strings.Contains(s, "10.0.0.7") {
		t.Errorf("Error() leaks details: %q", s)
	}
}

func TestError_RetryableOnlyUpstreamUnavailable(t *testing.T) {
	cases := map[string]bool{
		CategoryUpstreamUnavailable:     true,
		CategoryInvalidDPEMime:          false,
		CategoryResolverError:           false,
		CategoryResolverReturnedInvalid: false,
		"":                              false,
		"brand_new_category":            false,
	}
	for cat, want := range cases {
		e := &Error{Code: CodeResolutionFailed, Category: cat}
		if got := e.Retryable(); got != want {
			t.Errorf("category %q: Retryable()=%v want %v", cat, got, want)
		}
	}
}

func TestError_MessageIsOneLineNamingCodeAndFields(t *testing.T) {
	e := &Error{Code: 4008, Message: "Protocol version mismatch\nsecond line", ClientVersion: "0.1.0", ServerVersion: "0.2.0", MinSupported: "0.2.0", MaxSupported: "0.2.999"}
	s := e.Error()
	for _, want := range []string{"4008", "client=0.1.0", "server=0.2.0", "0.2.0..0.2.999"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q lacks %q", s, want)
		}
	}
	if strings.Contains(s, "\n") {
		t.Errorf("not one line: %q", s)
	}
}

func TestError_IsMatchesOnCode(t *testing.T) {
	var err error = &Error{Code: 4014, Message: "x", MCPServerName: "s"}
	if !errors.Is(err, &Error{Code: 4014}) {
		t.Error("errors.Is by code failed")
	}
	if errors.Is(err, &Error{Code: 4015}) {
		t.Error("errors.Is matched a different code")
	}
}

func TestError_MarshalRoundTripKeepsExtraAndDetails(t *testing.T) {
	in := `{"capability":"resources","code":4015,"details":{"a":1},"mcp_server_name":"s","message":"m","trace":"t-1"}`
	e, ok := DecodeError([]byte(in))
	if !ok {
		t.Fatal("not decoded")
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != in {
		t.Errorf("round trip:\n got %s\nwant %s", b, in)
	}
}

func FuzzDecodeError(f *testing.F) {
	for _, s := range []string{
		`{"code":4013,"message":"m","category":"x","details":{"k":[1,2]}}`,
		`{"code":1e3,"message":""}`, `{"code":-1,"message":"x","mcp_server":"q"}`, `null`, `[]`, `{"code":4008}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, ok := DecodeError(b)
		if !ok {
			return
		}
		_ = e.Error()
		out, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("marshal decoded error: %v", err)
		}
		e2, ok := DecodeError(out)
		if !ok || e2.Code != e.Code || e2.Message != e.Message || e2.Category != e.Category || e2.MCPServerName != e.MCPServerName {
			t.Fatalf("round trip changed %+v -> %+v", e, e2)
		}
	})
}

func TestNoAnswer_RoundTripsNamingComputerAndEvent(t *testing.T) {
	b, err := json.Marshal(NoAnswer("c2", EventGetSkills))
	if err != nil {
		t.Fatal(err)
	}
	perr, ok := DecodeError(json.RawMessage(b))
	if !ok {
		t.Fatalf("%s is not an ErrorPayload", b)
	}
	c, ev, ok := perr.NoAnswerFrom()
	if !ok || c != "c2" || ev != EventGetSkills || perr.Message != "computer c2 gave no answer to client:get_skills" {
		t.Errorf("%s → %q %q %v", b, c, ev, ok)
	}
	if _, _, ok := (&Error{Code: 404, Message: "x"}).NoAnswerFrom(); ok {
		t.Error("a plain 404 is not a NoAnswer")
	}
}
