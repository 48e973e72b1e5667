package library

import (
	"container/list"
	"sync"
)

// docCache keeps the last few converted documents: the demo reads the same
// document repeatedly (get_dpe after expiry) and conversion is not free.
type docCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front = most recent; values are *cacheEntry
	byURI map[string]*list.Element
}

type cacheEntry struct {
	uri  string
	data []byte
}

func newDocCache(max int) *docCache {
	return &docCache{max: max, order: list.New(), byURI: map[string]*list.Element{}}
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
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byURI[uri]; ok {
		e.Value.(*cacheEntry).data = data
		c.order.MoveToFront(e)
		return
	}
	c.byURI[uri] = c.order.PushFront(&cacheEntry{uri: uri, data: data})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byURI, last.Value.(*cacheEntry).uri)
	}
}
