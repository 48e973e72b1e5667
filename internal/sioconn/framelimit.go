package sioconn

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"reflect"
	"sync"
	"unsafe"

	ws "github.com/gorilla/websocket"
	"github.com/zishang520/socket.io/clients/engine/v3"
)

// errMessageTooLarge is what a limited connection's Read returns once a
// message over the limit was announced; the transport then closes.
var errMessageTooLarge = errors.New("message over the size limit")

// The size cap reads websocket frame headers as they pass. The library
// gives no read limit: its reader loop reads each message whole into
// memory (a 300 MB ack cost 2.9 GB RSS), and it never calls gorilla's
// SetReadLimit on its unexported connection. So the TCP (or TLS)
// connection under gorilla/websocket is wrapped, and a message whose
// frames announce more than the limit stops the connection before its
// payload is buffered.

// wsDialer reaches the private *websocket.Dialer of the library's
// websocket transport (zishang520 v3.0.6: field "dialer", set in
// Construct, used in DoOpen). TestMaxMessage_RefusesBeforeBuffering fails
// if a library upgrade moves it.
func wsDialer(t engine.Transport) *ws.Dialer {
	v := reflect.ValueOf(t)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	f := v.Elem().FieldByName("dialer")
	if !f.IsValid() || f.Type() != reflect.TypeFor[*ws.Dialer]() || !f.CanAddr() {
		return nil
	}
	return *(**ws.Dialer)(unsafe.Pointer(f.UnsafeAddr()))
}

// limitDialer makes d's connections count frame headers against max and
// call onTrip with the announced size when one goes over.
func limitDialer(d *ws.Dialer, max int64, onTrip func(announced int64)) {
	var nd net.Dialer
	wrap := func(c net.Conn) net.Conn {
		return &limitConn{Conn: c, max: max, onTrip: onTrip, inHeaders: true}
	}
	d.NetDialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := nd.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return wrap(c), nil
	}
	// With TLS the frames are only visible above it: do the handshake here
	// (gorilla then skips its own).
	tlsCfg := d.TLSClientConfig
	d.NetDialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		raw, err := nd.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cfg := &tls.Config{}
		if tlsCfg != nil {
			cfg = tlsCfg.Clone()
		}
		if cfg.ServerName == "" {
			host, _, _ := net.SplitHostPort(addr)
			cfg.ServerName = host
		}
		tc := tls.Client(raw, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, err
		}
		return wrap(tc), nil
	}
}

// limitConn follows the byte stream of one websocket client connection:
// HTTP response headers first (more than one block behind a proxy), then
// frames. It never copies payload bytes, only counts them.
type limitConn struct {
	net.Conn
	max    int64
	onTrip func(int64)

	mu          sync.Mutex // Read is called from one goroutine; Close may race it
	inHeaders   bool
	crlf        int // how much of "\r\n\r\n" was just seen
	hdr         [14]byte
	hdrN        int
	hdrNeed     int
	payloadLeft int64
	msgLen      int64 // bytes announced for the current data message
	tripped     bool
}

func (c *limitConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tripped {
		return 0, errMessageTooLarge
	}
	if c.scan(p[:n]) {
		c.tripped = true
		if c.onTrip != nil {
			c.onTrip(c.msgLen)
		}
		_ = c.Conn.Close()
		return 0, errMessageTooLarge
	}
	return n, err
}

// scan advances the parser over b; true means a message went over max.
func (c *limitConn) scan(b []byte) bool {
	const endOfHeaders = "\r\n\r\n"
	for i := 0; i < len(b); {
		if c.inHeaders {
			ch := b[i]
			i++
			switch {
			case ch == endOfHeaders[c.crlf]:
				c.crlf++
				if c.crlf == len(endOfHeaders) {
					c.inHeaders, c.crlf = false, 0
				}
			case ch == '\r':
				c.crlf = 1
			default:
				c.crlf = 0
			}
			continue
		}
		if c.payloadLeft > 0 {
			k := min(int64(len(b)-i), c.payloadLeft)
			c.payloadLeft -= k
			i += int(k)
			continue
		}
		if c.hdrN == 0 && b[i] == 'H' {
			// "HTTP/1.1 101" after a proxy's "200 Connection established";
			// no frame starts with 'H' (it would set RSV1 without an extension).
			c.inHeaders = true
			continue
		}
		c.hdr[c.hdrN] = b[i]
		c.hdrN++
		i++
		if c.hdrN == 2 {
			c.hdrNeed = 2
			switch c.hdr[1] & 0x7f {
			case 126:
				c.hdrNeed = 4
			case 127:
				c.hdrNeed = 10
			}
			if c.hdr[1]&0x80 != 0 {
				c.hdrNeed += 4 // masked (servers must not, but count it right)
			}
		}
		if c.hdrN < 2 || c.hdrN < c.hdrNeed {
			continue
		}
		var length int64
		switch l := c.hdr[1] & 0x7f; l {
		case 126:
			length = int64(c.hdr[2])<<8 | int64(c.hdr[3])
		case 127:
			for _, x := range c.hdr[2:10] {
				length = length<<8 | int64(x)
			}
			if length < 0 {
				return true
			}
		default:
			length = int64(l)
		}
		switch c.hdr[0] & 0x0f {
		case 0x1, 0x2: // text, binary: a new message
			c.msgLen = length
		case 0x0: // continuation
			c.msgLen += length
		}
		if c.msgLen > c.max {
			return true
		}
		c.payloadLeft = length
		c.hdrN, c.hdrNeed = 0, 0
	}
	return false
}
