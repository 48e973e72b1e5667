package library

import (
	"container/list"
	"sync"
)

// docCache keeps the last few converted documents: the demo reads the same
// document repeatedly (get_dpe after expiry) and conversion is not free.
type docCache struct {
	mu    sync.Mutex
	max   int // entries
	limit int // total bytes; a document larger than limit/2 is not kept
	bytes int
	order *list.List // front = most recent; values are *cacheEntry
	byURI map[string]*list.Element
}

type cacheEntry struct {
	uri  string
	data []byte
}

// cacheByteLimit bounds the cache's memory: a user folder may hold
// documents of tens of megabytes.
const cacheByteLimit = 64 << 20

func newDocCache(max int) *docCache {
	return &docCache{max: max, limit: cacheByteLimit, order: list.New(), byURI: map[string]*list.Element{}}
}

func (c *docCache) get(uri string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byURI[uri]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*cacheEntry).data, true
	}
	return nil, false
}

func (c *docCache) put(uri string, data []byte) {
	if c.max <= 0 || len(data) > c.limit/2 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byURI[uri]; ok {
		ent := e.Value.(*cacheEntry)
		c.bytes += len(data) - len(ent.data)
		ent.data = data
		c.order.MoveToFront(e)
	} else {
		c.byURI[uri] = c.order.PushFront(&cacheEntry{uri: uri, data: data})
		c.bytes += len(data)
	}
	for c.order.Len() > c.max || c.bytes > c.limit {
		last := c.order.Back()
		ent := last.Value.(*cacheEntry)
		c.order.Remove(last)
		delete(c.byURI, ent.uri)
		c.bytes -= len(ent.data)
	}
}

// drop forgets uri (its file changed).
func (c *docCache) drop(uri string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byURI[uri]; ok {
		c.order.Remove(e)
		delete(c.byURI, uri)
		c.bytes -= len(e.Value.(*cacheEntry).data)
	}
}
