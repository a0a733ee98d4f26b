package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/websocket"

	"turnstile/domain"
	"turnstile/internal/fanout"
)

// rpcSocket serves JSON-RPC 2.0 over a WebSocket at GET /rpc, the
// reference's transport: calls and answers as over POST /rpc (the same
// methods, checks and errors, through rpcOne), and every notification of
// GET /v1/events (filtered by ?turn_id= and ?workspace_id=) pushed as a
// JSON-RPC notification. It sits behind the same bearer auth as the rest:
// the upgrade request must carry the token.
//
// golang.org/x/net/websocket is used because it is already in the module
// graph (no new module) and does what this needs: text frames, a server
// that writes when it has something to say, and a payload limit.
func (s *Server) rpcSocket(w http.ResponseWriter, r *http.Request) {
	// The notification filters are authorised as on /v1/events.
	if ws := r.URL.Query().Get("workspace_id"); ws != "" && principalOf(r).Authorize(domain.OpEventsSubscribe) == nil {
		if err := principalOf(r).AuthorizeIn(domain.OpEventsSubscribe, ws); err != nil {
			writeError(w, err)
			return
		}
	}
	if id := r.URL.Query().Get("turn_id"); id != "" && principalOf(r).Authorize(domain.OpEventsSubscribe) == nil {
		if err := s.authorizeTurn(r, domain.OpEventsSubscribe, id); err != nil {
			writeError(w, err)
			return
		}
	}
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		w.Header().Set("Upgrade", "websocket")
		writeError(w, errorf(http.StatusUpgradeRequired, "upgrade_required", nil, "GET /rpc is a WebSocket (send Upgrade: websocket); POST /rpc takes calls over plain HTTP"))
		return
	}
	// The socket joins the broadcast before the handshake answers, so every
	// event appended after the client sees the upgrade is pushed to it.
	var cl *fanout.Client
	if principalOf(r).Authorize(domain.OpEventsSubscribe) == nil {
		cl = join(s.broadcaster(), r.URL.Query().Get("turn_id"))
		defer cl.Leave()
	}
	// A message is read whole into memory, as a request's body is: what a
	// socket has read of the message it is on counts against the body
	// budget until the message is answered (the frames are read after the
	// connection is hijacked, past budgetBodies).
	h := &hijackable{ResponseWriter: w}
	if s.bodies != nil {
		h.held = &budgetedBody{b: s.bodies, who: s.bodies.share(principalOf(r)), whoMax: s.bodies.max / 2}
		defer h.held.release()
	}
	srv := websocket.Server{
		// Bearer auth already ran; a browser cannot set that header on a
		// WebSocket, so the Origin check adds nothing and would refuse
		// clients that send no Origin.
		Handshake: func(*websocket.Config, *http.Request) error { return nil },
		Handler:   func(ws *websocket.Conn) { s.serveRPCSocket(r, ws, cl, h.held) },
	}
	srv.ServeHTTP(h, r)
}

// hijackable lets the WebSocket server reach the connection through the
// router's response writer wrappers; held, when set, counts what the
// socket reads against the body budget.
type hijackable struct {
	http.ResponseWriter
	held *budgetedBody
}

func (h *hijackable) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil || h.held == nil {
		return conn, rw, err
	}
	h.held.ReadCloser = io.NopCloser(rw.Reader)
	return conn, bufio.NewReadWriter(bufio.NewReader(h.held), rw.Writer), nil
}

// rpcSocketConn is one JSON-RPC WebSocket; send serialises its writes.
type rpcSocketConn struct {
	ws *websocket.Conn
	mu sync.Mutex // guards writes to ws
	// timeout bounds each write (Config.SSEWriteTimeout); once the socket
	// is cut off as slow (kicked), the grace's deadline stands.
	timeout time.Duration
	kicked  atomic.Bool
}

func (c *rpcSocketConn) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.sendRaw(b)
}

// sendRaw sends one encoded message.
func (c *rpcSocketConn) sendRaw(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timeout > 0 && !c.kicked.Load() {
		_ = c.ws.SetWriteDeadline(time.Now().Add(c.timeout))
	}
	// A text frame written from b itself: Message.Send's string(b) was a
	// second copy of every answer, held until the client read it (the
	// hundred-and-eighty-third review).
	c.ws.PayloadType = websocket.TextFrame
	_, err := c.ws.Write(b)
	return err
}

func (s *Server) serveRPCSocket(r *http.Request, ws *websocket.Conn, cl *fanout.Client, held *budgetedBody) {
	ws.MaxPayloadBytes = MaxBodyBytes
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	r = r.WithContext(ctx)
	c := &rpcSocketConn{ws: ws, timeout: s.cfg.SSEWriteTimeout}
	go func() { // notifications
		defer cancel()
		s.pushNotifications(ctx, r, c, cl)
	}()
	go func() { // the server drains: the socket ends
		select {
		case <-s.draining:
			ws.Close()
		case <-ctx.Done():
			ws.Close()
		}
	}()
	for {
		var msg []byte
		if err := websocket.Message.Receive(ws, &msg); err != nil {
			return
		}
		// The credential is checked again before every call: a revoked
		// one answers nothing more, and the socket closes.
		if err := s.stillAuthenticated(ctx, r); err != nil {
			_ = c.send(rpcErrorResponse(nil, err))
			return
		}
		out := s.rpcSocketCall(r, msg, held)
		msg = nil
		var err error
		if out != nil {
			err = c.sendRaw(out)
		}
		held.release() // the message is answered: its bytes and its answer's are no longer held
		if err != nil {
			return
		}
	}
}

// rpcSocketCall answers one message (a call or a batch, whose answers
// count against held until they are sent); nil when nothing is to be
// answered (notifications only).
func (s *Server) rpcSocketCall(r *http.Request, msg []byte, held *budgetedBody) []byte {
	trimmed := bytes.TrimSpace(msg)
	one := func(resp rpcResponse) []byte {
		b, err := json.Marshal(resp)
		if err != nil {
			b, _ = json.Marshal(rpcErrorResponse(resp.ID, err))
		}
		if len(b) >= largeAnswer {
			// Held against the body budget until it is sent, as writeJSON
			// holds a REST answer: 256 sockets each sent a turn of a 3 MiB
			// snapshot, read by no one, held gigabytes past a budget of
			// 256 MiB (the hundred-and-eighty-third review).
			if err := held.hold(int64(len(b))); err != nil {
				b, _ = json.Marshal(rpcErrorResponse(resp.ID, err))
			}
		}
		return b
	}
	if len(trimmed) == 0 || trimmed[0] != '[' {
		if resp, ok := s.rpcOne(r, trimmed); ok {
			return one(resp)
		}
		return nil
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(trimmed, &batch); err != nil {
		return one(rpcFail(nil, rpcParseError, "parse error: "+err.Error(), nil))
	}
	if len(batch) == 0 {
		return one(rpcFail(nil, rpcInvalidRequest, "invalid request: empty batch", nil))
	}
	return s.rpcBatch(r, batch, held)
}

// pushNotifications sends each durable event's notification after cl
// joined the broadcast, as on the event stream and from the same broadcast
// (one store subscription per process, each event encoded once), until ctx
// ends, a send fails, or the socket falls further behind than the broadcast
// holds: then it is sent a JSON-RPC error naming slow_consumer and the last
// event it got, and ctx ends (the socket closes). A nil cl (a role that may
// not follow events) takes calls only.
func (s *Server) pushNotifications(ctx context.Context, r *http.Request, c *rpcSocketConn, cl *fanout.Client) {
	recheck := time.NewTicker(CredentialRecheck)
	defer recheck.Stop()
	lostAuth := func() bool { // the credential again; revoked: say so, end
		err := s.stillAuthenticated(ctx, r)
		if err != nil {
			_ = c.send(rpcErrorResponse(nil, err))
		}
		return err != nil
	}
	if cl == nil {
		// No notifications, but the socket still ends within a second of
		// its credential's revocation, as the README says.
		for {
			select {
			case <-ctx.Done():
				return
			case <-recheck.C:
				if lostAuth() {
					return
				}
			}
		}
	}
	q := r.URL.Query()
	f := sseFilter{turn: q.Get("turn_id"), workspace: q.Get("workspace_id"), p: principalOf(r)}
	b := s.broadcaster()
	cl.OnKick(func() {
		c.kicked.Store(true)
		c.ws.SetWriteDeadline(time.Now().Add(s.cfg.SSESlowGrace))
	})
	last := cl.Joined()
	buf := make([]*fanout.Frame, 0, sseBatch)
	for {
		wake := cl.Wake()
		frames, err := cl.Take(buf[:0])
		if errors.Is(err, fanout.ErrSlow) {
			s.log.Info("rpc socket: slow consumer cut off", "last_event_id", last.String())
			_ = c.send(rpcFail(nil, rpcServerError, fmt.Sprintf("this socket fell more than %d events behind the live stream and was disconnected; read what it missed from GET /v1/events with Last-Event-ID %s", b.Buffer(), last),
				map[string]any{"code": "slow_consumer", "last_event_id": last.String()}))
			return
		}
		for _, fr := range frames {
			if f.match(fr) {
				if err := c.sendRaw(fr.Message); err != nil {
					return
				}
			}
			last = fr.Position
		}
		if cl.Pending() {
			// Busy: the credential's check is not left to the select.
			select {
			case <-recheck.C:
				if lostAuth() {
					return
				}
			default:
			}
			continue
		}
		select {
		case <-wake:
		case <-cl.Kicked():
		case <-ctx.Done():
			return
		case <-b.Done():
			return
		case <-recheck.C:
			if lostAuth() {
				return
			}
		}
	}
}
