package server

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"sync"
	"time"
)

// Redis is not trusted: whoever can reach it could read every routed
// request and answer (signed access URLs among them), make a node run
// client:tool_call on any computer, list fake computers, or tell every node
// to disconnect its sockets. So what nodes say to each other is sealed with
// a secret they share (Options.ClusterSecret):
//
//   - routed requests, their answers and office notifications are AES-GCM
//     sealed (authenticated and encrypted), bound to the channel they are
//     published on, stamped with a time and an id; a node drops what does
//     not open, what is older than replayWindow, and an id it has seen;
//   - registry entries stay readable (the Lua room rules read them) and
//     carry an HMAC; a node ignores entries whose HMAC is wrong.
//
// What a secret cannot stop: anyone who can write to Redis can delete keys
// or flood it (denial of service), and can put back an entry a node once
// signed (a computer that left listed again until its node's next resync;
// a request routed to it is refused by that node). Redis still needs a
// password or ACL, TLS and a private network.
type sealer struct {
	aead   cipher.AEAD // nil without a secret (InsecureCluster)
	macKey []byte

	mu   sync.Mutex
	seen map[string]time.Time // ids of accepted messages, until replayWindow passes
}

const (
	// replayWindow is how old a sealed message may be (clock skew between
	// nodes plus Redis delivery); an id is remembered this long.
	replayWindow = time.Minute
	// maxSeenIDs bounds the replay memory; only sealed messages (from
	// nodes holding the secret) are remembered, so this is reached only by
	// a cluster routing over 2,000 requests a second.
	maxSeenIDs  = 1 << 17
	sealVersion = 's' // first byte of a sealed message
)

var (
	errUnsealed = errors.New("not sealed with this cluster's secret")
	errReplayed = errors.New("replayed or stale")
)

func newSealer(secret string) (*sealer, error) {
	s := &sealer{seen: map[string]time.Time{}}
	if secret == "" {
		return s, nil
	}
	block, err := aes.NewCipher(deriveKey(secret, "dpe-tui cluster seal v1"))
	if err != nil {
		return nil, err
	}
	if s.aead, err = cipher.NewGCM(block); err != nil {
		return nil, err
	}
	s.macKey = deriveKey(secret, "dpe-tui cluster registry v1")
	return s, nil
}

func deriveKey(secret, purpose string) []byte {
	h := hmac.New(sha256.New, []byte(secret))
	h.Write([]byte(purpose))
	return h.Sum(nil)
}

// seal is what is published on channel for plain.
func (s *sealer) seal(channel string, plain []byte) []byte {
	if s.aead == nil {
		return plain
	}
	out := make([]byte, 1+s.aead.NonceSize(), 1+s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	out[0] = sealVersion
	_, _ = rand.Read(out[1:])
	return s.aead.Seal(out, out[1:], plain, []byte(channel))
}

// open returns the plain message published on channel, or errUnsealed.
func (s *sealer) open(channel string, msg []byte) ([]byte, error) {
	if s.aead == nil {
		return msg, nil
	}
	n := s.aead.NonceSize()
	if len(msg) < 1+n+s.aead.Overhead() || msg[0] != sealVersion {
		return nil, errUnsealed
	}
	plain, err := s.aead.Open(nil, msg[1:1+n], msg[1+n:], []byte(channel))
	if err != nil {
		return nil, errUnsealed
	}
	return plain, nil
}

// fresh accepts a message id stamped at ms (unix milliseconds) once, within
// replayWindow of now. Without a secret there is nothing to hold it to.
func (s *sealer) fresh(id string, ms int64, now time.Time) error {
	if s.aead == nil {
		return nil
	}
	at := time.UnixMilli(ms)
	if at.Before(now.Add(-replayWindow)) || at.After(now.Add(replayWindow)) {
		return errReplayed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[id]; ok {
		return errReplayed
	}
	if len(s.seen) >= maxSeenIDs {
		for k, t := range s.seen {
			if now.Sub(t) > replayWindow {
				delete(s.seen, k)
			}
		}
		if len(s.seen) >= maxSeenIDs {
			return errReplayed
		}
	}
	s.seen[id] = at
	return nil
}

// sign sets e.MAC; verify checks it. The MAC covers every field a node acts
// on, each length-prefixed so that no two entries share a MAC input.
func (s *sealer) sign(e *entry) {
	if s.aead == nil {
		return
	}
	e.MAC = s.entryMAC(*e)
}

func (s *sealer) verify(e entry) bool {
	if s.aead == nil {
		return true
	}
	want, err := hex.DecodeString(e.MAC)
	if err != nil {
		return false
	}
	got, _ := hex.DecodeString(s.entryMAC(e))
	return hmac.Equal(got, want)
}

func (s *sealer) entryMAC(e entry) string {
	h := hmac.New(sha256.New, s.macKey)
	for _, f := range []string{e.SID, e.Name, e.Role, e.Office, e.Version, e.Node} {
		h.Write([]byte(strconv.Itoa(len(f)) + ":" + f))
	}
	return hex.EncodeToString(h.Sum(nil))
}
