package server_test

import (
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/dpe-tui/dpe-tui/protocol"
	"github.com/dpe-tui/dpe-tui/server"
)

func Example() {
	s, err := server.New(server.Options{
		APIKey: "", // set to require x-api-key / auth.api_key
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		panic(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(l) }()
	fmt.Println("agents and computers connect to http://" + "127.0.0.1:<port>" + protocol.DefaultPath + " namespace " + protocol.Namespace)
	_ = s.Close()
	fmt.Println("serve returned:", <-done)
	// Output:
	// agents and computers connect to http://127.0.0.1:<port>/socket.io/ namespace /smcp
	// serve returned: <nil>
}
