package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// benchPoster sends bench's hot requests (decisions, approval responses):
// a POST of a JSON body, answering the status and the body.
type benchPoster interface {
	post(path string, body []byte) (status int, resp []byte, err error)
}

// stdPoster posts through net/http (the client every other command uses).
type stdPoster struct{ c *client }

func (p stdPoster) post(path string, body []byte) (int, []byte, error) {
	return p.c.postRaw(path, body)
}

// rawPoster is a minimal HTTP/1.1 client for one goroutine: one keep-alive
// connection, each request written in one buffer, each answer read by its
// Content-Length (or chunked). bench runs on the machine the server runs
// on, and net/http's client took 49-75 µs of CPU per decision there, a
// third of what the server spends (docs/benchmarks.md): a load generator
// should not take the cores it measures. Only for http:// servers.
type rawPoster struct {
	addr, host, auth string
	conn             net.Conn
	r                *bufio.Reader
	w                []byte
	users            serverUsers
}

func newRawPoster(c *client) (*rawPoster, error) {
	u, err := url.Parse(c.base)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("the raw client needs an http:// server, not %q", c.base)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	return &rawPoster{addr: addr, host: u.Host, auth: "Bearer " + c.token, users: c.users}, nil
}

// post sends one request. A request on a kept-alive connection that fails
// before any answer arrived is sent once more on a new one (the server
// closes idle connections; a decision retried with its tool call id is
// answered as a replay, never decided twice).
func (p *rawPoster) post(path string, body []byte) (int, []byte, error) {
	reused := p.conn != nil
	status, resp, answered, err := p.once(path, body)
	if err != nil && reused && !answered {
		p.close()
		status, resp, _, err = p.once(path, body)
	}
	if err != nil {
		p.close()
	}
	return status, resp, err
}

func (p *rawPoster) close() {
	if p.conn != nil {
		p.conn.Close()
		p.conn, p.r = nil, nil
	}
}

func (p *rawPoster) once(path string, body []byte) (status int, resp []byte, answered bool, err error) {
	if p.conn == nil {
		c, err := p.users.dial(context.Background(), "tcp", p.addr)
		if err != nil {
			return 0, nil, false, err
		}
		p.conn, p.r = c, bufio.NewReaderSize(c, 16<<10)
	}
	w := p.w[:0]
	w = append(w, "POST "...)
	w = append(w, path...)
	w = append(w, " HTTP/1.1\r\nHost: "...)
	w = append(w, p.host...)
	w = append(w, "\r\nAuthorization: "...)
	w = append(w, p.auth...)
	w = append(w, "\r\nContent-Type: application/json\r\nContent-Length: "...)
	w = strconv.AppendInt(w, int64(len(body)), 10)
	w = append(w, "\r\n\r\n"...)
	w = append(w, body...)
	p.w = w
	p.conn.SetDeadline(time.Now().Add(time.Minute))
	if _, err := p.conn.Write(w); err != nil {
		return 0, nil, false, err
	}
	line, err := p.r.ReadSlice('\n')
	if err != nil {
		return 0, nil, false, err
	}
	answered = true
	// "HTTP/1.1 200 OK\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) {
		return 0, nil, true, fmt.Errorf("bad status line %q", line)
	}
	if status, err = strconv.Atoi(string(line[9:12])); err != nil {
		return 0, nil, true, fmt.Errorf("bad status line %q", line)
	}
	length, chunked, closing := -1, false, false
	for {
		h, err := p.r.ReadSlice('\n')
		if err != nil {
			return 0, nil, true, err
		}
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 {
			break
		}
		k, v, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			continue
		}
		v = bytes.TrimSpace(v)
		switch {
		case asciiEqualFold(k, "Content-Length"):
			if length, err = strconv.Atoi(string(v)); err != nil || length < 0 {
				return 0, nil, true, fmt.Errorf("bad Content-Length %q", v)
			}
		case asciiEqualFold(k, "Transfer-Encoding"):
			chunked = asciiEqualFold(v, "chunked")
		case asciiEqualFold(k, "Connection"):
			closing = asciiEqualFold(v, "close")
		}
	}
	switch {
	case chunked:
		resp, err = readChunked(p.r)
	case length >= 0:
		if length > 16<<20 {
			return 0, nil, true, errors.New("answer larger than 16 MiB")
		}
		resp = make([]byte, length)
		_, err = io.ReadFull(p.r, resp)
	default:
		resp, err = io.ReadAll(io.LimitReader(p.r, 16<<20))
		closing = true
	}
	if closing {
		p.close()
	}
	return status, resp, true, err
}

// readChunked reads a chunked body (no trailers expected).
func readChunked(r *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return nil, err
		}
		size, err := strconv.ParseInt(strings.TrimSpace(strings.SplitN(string(line), ";", 2)[0]), 16, 64)
		if err != nil || size < 0 || int64(len(out))+size > 16<<20 {
			return nil, fmt.Errorf("bad chunk size %q", line)
		}
		if size == 0 {
			for { // trailers, then the empty line
				l, err := r.ReadSlice('\n')
				if err != nil {
					return nil, err
				}
				if len(bytes.TrimRight(l, "\r\n")) == 0 {
					return out, nil
				}
			}
		}
		n := len(out)
		out = append(out, make([]byte, size)...)
		if _, err := io.ReadFull(r, out[n:]); err != nil {
			return nil, err
		}
		if _, err := r.Discard(2); err != nil { // the chunk's CRLF
			return nil, err
		}
	}
}

func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
