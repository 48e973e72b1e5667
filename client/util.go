package client

import (
	"errors"
	"sort"

	"github.com/dpe-tui/dpe-tui/protocol"
)

func asErr[T error](err error, target *T) bool { return errors.As(err, target) }

func sortSessions(s []protocol.SessionInfo) {
	sort.SliceStable(s, func(i, j int) bool { return s[i].Name < s[j].Name })
}
