package client

import (
	"fmt"
	"strings"

	"github.com/dpe-tui/dpe-tui/protocol"
)

// AmbiguousServerError is a display name that two or more servers of one
// computer share (0.3+: name is display only and may collide). The user
// must name one by its key.
type AmbiguousServerError struct {
	Computer string
	Name     string
	Keys     []protocol.ServerKey
}

func (e *AmbiguousServerError) Error() string {
	keys := make([]string, len(e.Keys))
	for i, k := range e.Keys {
		keys[i] = string(k)
	}
	return fmt.Sprintf("server name %s on computer %s is shared by %d servers, keys %s: pass one of the keys",
		e.Name, e.Computer, len(e.Keys), strings.Join(keys, ", "))
}

// MatchServer picks the server that arg names among servers of computer:
// the one whose key is arg, else the only one whose display name is arg.
// ok is false when none matches; a name two servers share is an
// *AmbiguousServerError listing their keys.
func MatchServer(computer string, servers []ServerConfig, arg string) (sc ServerConfig, ok bool, err error) {
	for _, s := range servers {
		if string(s.Key) == arg {
			return s, true, nil
		}
	}
	var named []ServerConfig
	for _, s := range servers {
		if s.Name == arg {
			named = append(named, s)
		}
	}
	switch len(named) {
	case 0:
		return ServerConfig{}, false, nil
	case 1:
		return named[0], true, nil
	}
	amb := &AmbiguousServerError{Computer: computer, Name: arg}
	for _, s := range named {
		amb.Keys = append(amb.Keys, s.Key)
	}
	return ServerConfig{}, false, amb
}

// KeysDiffer reports whether any server's key is not its display name:
// then listings must show keys, or two rows may look the same.
func KeysDiffer(servers []ServerConfig) bool {
	for _, s := range servers {
		if string(s.Key) != s.Name {
			return true
		}
	}
	return false
}
