package server

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/internal/interoptest"
	"github.com/dpe-tui/dpe-tui/protocol"
)

// nodeModules returns node and interop/node_modules with socket.io-client
// installed; missing, the test skips locally and fails under CI.
func nodeModules(t *testing.T) (node, modules string) {
	t.Helper()
	return interoptest.NodeModules(t, "socket.io-client")
}

// runNode runs testdata/node_agent.js and decodes its JSON line.
func runNode(t *testing.T, env ...string) map[string]any {
	t.Helper()
	node, modules := nodeModules(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "node_agent.js"))
	cmd.Env = append(os.Environ(), append([]string{"NODE_PATH=" + modules}, env...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var out map[string]any
	if jerr := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &out); jerr != nil {
		t.Fatalf("node: %v; stdout %q; stderr %q", err, stdout.String(), stderr.String())
	}
	if err != nil || out["error"] != nil {
		t.Fatalf("node agent failed: %v: %v; stderr %q", err, out["error"], stderr.String())
	}
	return out
}

func TestNodeAgent_JoinsListsAndGetsConfig(t *testing.T) {
	nodeModules(t) // skip before starting anything
	_, base := startServer(t, Options{})
	comp := mustDial(t, base, peerConfig{Role: protocol.RoleComputer})
	config := map[string]any{
		"servers": map[string]any{"lib": map[string]any{"name": "lib", "type": "stdio", "disabled": false}},
		"inputs":  []any{},
	}
	received := comp.answer(protocol.EventGetConfig, func(map[string]any) []any { return []any{config} })
	comp.join(protocol.RoleComputer, "comp", "interop")

	out := runNode(t, "SMCP_URL="+base, "SMCP_PATH="+protocol.DefaultPath, "SMCP_OFFICE=interop", "SMCP_COMPUTER=comp")

	if got := out["join"]; !reflect.DeepEqual(got, []any{true, nil}) {
		t.Errorf("join ack %v, want [true null]", got)
	}
	listArgs, _ := out["list"].([]any)
	if len(listArgs) != 1 {
		t.Fatalf("list_room ack %v: want one argument", out["list"])
	}
	list, _ := listArgs[0].(map[string]any)
	if list["req_id"] != "node-list" {
		t.Errorf("list_room req_id %v", list["req_id"])
	}
	var members []string
	sessions, _ := list["sessions"].([]any)
	for _, s := range sessions {
		m, _ := s.(map[string]any)
		members = append(members, strings.Join([]string{m["role"].(string), m["name"].(string), m["office_id"].(string), m["a2c_version"].(string)}, "|"))
		if m["name"] == "node-agent" && m["sid"] != out["sid"] {
			t.Errorf("node agent sid %v, socket.id %v", m["sid"], out["sid"])
		}
	}
	if want := []string{"agent|node-agent|interop|0.2.0", "computer|comp|interop|0.2.0"}; !reflect.DeepEqual(members, want) {
		t.Errorf("list_room members %v, want %v", members, want)
	}
	if got := out["config"]; !reflect.DeepEqual(got, []any{config}) {
		t.Errorf("get_config ack %v, want %v", got, []any{config})
	}
	if got := <-received; got["req_id"] != "node-cfg" || got["computer"] != "comp" {
		t.Errorf("computer received %v", got)
	}
	if got, want := out["missing"], []any{map[string]any{"code": 404.0, "message": "no computer named nobody in office interop"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("unknown computer answer %v, want %v", got, want)
	}
	t.Logf("node agent transport after connect: %v", out["transport"])
}

func TestNodeAgent_IncompatibleVersionSees4008Body(t *testing.T) {
	nodeModules(t)
	_, base := startServer(t, Options{})
	out := runNode(t, "SMCP_URL="+base, "SMCP_MODE=version", "SMCP_VERSION=0.3.0")
	body, _ := out["body"].(string)
	e, ok := protocol.DecodeError(body)
	if !ok || e.Code != protocol.CodeVersionMismatch || e.ClientVersion != "0.3.0" || e.ServerVersion != protocol.Version {
		t.Errorf("connect_error %v: body %q, want the 4008 payload", out["message"], body)
	}
	if out["status"] != float64(400) {
		t.Errorf("status %v, want 400", out["status"])
	}
}
