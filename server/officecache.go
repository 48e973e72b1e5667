package server

import (
	"sync"
	"time"
)

// officeCache keeps, per office, the registry entries of other nodes that
// list_room last read, so that a node answers list_room from memory while
// the office does not change: a 3-node listing otherwise waits one Redis
// round trip (the office script), queued behind every other node's, which
// made it more than twice one node's.
//
// An office's entry is dropped when its membership changes: on the enter
// and leave notifications other nodes publish for it (they publish one for
// every join, leave and disconnect), and on the leaves this node's reaper
// announces. All entries are dropped when Redis goes down or comes back
// (notifications may have been lost meanwhile). An entry older than its
// maximum age is read again, which bounds what nothing announces: a node
// whose heartbeat expired before it is reaped, registrations redone after
// an outage.
//
// A read that raced with a change must not be stored: gen counts the
// changes, and put stores only when none came since the read began.
type officeCache struct {
	maxAge time.Duration

	mu  sync.Mutex
	gen uint64
	m   map[string]cachedOffice
}

type cachedOffice struct {
	entries []entry
	at      time.Time
}

// maxCachedOffices bounds the cache: past it, expired entries are dropped,
// and when none has expired, all of them.
const maxCachedOffices = 4096

// maxOfficeCacheAge is the longest an office's entries are used without
// reading the registry again (at most a quarter of the node TTL).
const maxOfficeCacheAge = time.Second

func newOfficeCache(ttl time.Duration) *officeCache {
	return &officeCache{maxAge: min(maxOfficeCacheAge, ttl/4), m: map[string]cachedOffice{}}
}

// get returns office's entries when they are cached and fresh; otherwise
// the token to give put with what the registry says.
func (c *officeCache) get(office string, now time.Time) (es []entry, ok bool, token uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, hit := c.m[office]; hit && now.Sub(e.at) < c.maxAge && !now.Before(e.at) {
		return e.entries, true, 0
	}
	return nil, false, c.gen
}

// put stores office's entries as read since get gave token, unless the
// membership of any office changed in between. The slice is shared with
// later gets: callers do not modify it.
func (c *officeCache) put(office string, token uint64, es []entry, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if token != c.gen {
		return
	}
	if len(c.m) >= maxCachedOffices {
		for k, e := range c.m {
			if now.Sub(e.at) >= c.maxAge {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxCachedOffices {
			clear(c.m)
		}
	}
	c.m[office] = cachedOffice{entries: es, at: now}
}

// changed drops office's entries: its membership changed.
func (c *officeCache) changed(office string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	delete(c.m, office)
}

// reset drops every entry.
func (c *officeCache) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.m)
}
