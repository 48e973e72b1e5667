package client

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func TestEventQueue_DropsOldestWhenReaderFallsBehind(t *testing.T) {
	q := newEventQueue(4)
	for i := range 10 {
		q.push(NotifyEvent{Name: fmt.Sprint(i)})
	}
	q.close()
	q.push(NotifyEvent{Name: "after close"}) // must not panic
	var got []string
	for ev := range q.ch {
		got = append(got, ev.(NotifyEvent).Name)
	}
	if strings.Join(got, ",") != "6,7,8,9" || q.dropped.Load() != 6 {
		t.Errorf("got %v dropped %d; want the newest 4 and 6 dropped", got, q.dropped.Load())
	}
}

func TestDecodeNotify_TypedAndLenient(t *testing.T) {
	ev := decodeNotify(protocol.NotifyLeaveOffice, []any{map[string]any{"office_id": "o", "computer": "box", "agent": nil}})
	if ev != (NotifyEvent{Name: protocol.NotifyLeaveOffice, Computer: "box", OfficeID: "o"}) {
		t.Errorf("got %+v", ev)
	}
	if ev := decodeNotify(protocol.NotifyUpdateConfig, []any{"junk"}); ev.Name != protocol.NotifyUpdateConfig || ev.Computer != "" {
		t.Errorf("got %+v", ev)
	}
	if ev := decodeNotify(protocol.NotifyUpdateDesktop, nil); ev.Name != protocol.NotifyUpdateDesktop {
		t.Errorf("got %+v", ev)
	}
}

func TestTimeoutError_NamesEventAndComputer(t *testing.T) {
	e := &TimeoutError{Event: protocol.EventGetConfig, Computer: "X", After: 30 * time.Second}
	if e.Error() != "client:get_config to computer X: no answer within 30s" || !e.Timeout() {
		t.Errorf("%q", e)
	}
	e = &TimeoutError{Event: protocol.EventListRoom, After: 2 * time.Second}
	if e.Error() != "server:list_room: no answer within 2s" {
		t.Errorf("%q", e)
	}
}

func TestConfig_SortedServersAndInputs(t *testing.T) {
	tests := []struct {
		name, ack string
		want      string
	}{
		{name: "spec dict", ack: `{"inputs":[{"id":"t","type":"promptString","description":"d"},"junk"],"servers":{"zeta":{"type":"sse","disabled":true},"alpha":{"type":"stdio","server_parameters":{"command":"x"}}}}`,
			want: "alpha:stdio:false,zeta:sse:true"},
		{name: "list with names", ack: `{"servers":[{"name":"b","type":"streamable"},{"name":"a","type":"stdio"},{"type":"nameless"},5]}`,
			want: "a:stdio:false,b:streamable:false"},
		{name: "wrong field types read as zero", ack: `{"servers":{"s":{"type":3,"disabled":"yes"}}}`, want: "s::false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fakeClient(t, func(string, map[string]any) []any { return jsonArgs(t, tt.ack) })
			cfg, err := c.Config(context.Background(), "box")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range cfg.Servers {
				got = append(got, fmt.Sprintf("%s:%s:%v", s.Name, s.Type, s.Disabled))
			}
			if strings.Join(got, ",") != tt.want || len(cfg.Raw) == 0 {
				t.Errorf("got %v", got)
			}
		})
	}
}

func TestComputers_OnlyComputerRoleSortedByName(t *testing.T) {
	c := fakeClient(t, func(ev string, p map[string]any) []any {
		if ev != protocol.EventListRoom || p["office_id"] != "office-a" || p["agent"] != "agent" {
			t.Errorf("request %s %v", ev, p)
		}
		return jsonArgs(t, `{"sessions":[{"sid":"2","name":"zed","role":"computer","a2c_version":"0.2.1"},
			{"sid":"1","name":"agent","role":"agent"},{"sid":"3","name":"amy","role":"computer","a2c_version":5},{"sid":"4","role":"computer"}]}`)
	})
	got, err := c.Computers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "amy" || got[0].SID != "3" || got[1].Name != "zed" || got[1].A2CVersion != "0.2.1" {
		t.Errorf("got %+v", got)
	}
}
