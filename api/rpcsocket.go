package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/net/websocket"

	"turnstile/domain"
	"turnstile/domain/eventcodec"
	"turnstile/domain/eventstore"
	"turnstile/domain/turn"
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
	srv := websocket.Server{
		// Bearer auth already ran; a browser cannot set that header on a
		// WebSocket, so the Origin check adds nothing and would refuse
		// clients that send no Origin.
		Handshake: func(*websocket.Config, *http.Request) error { return nil },
		Handler:   func(ws *websocket.Conn) { s.serveRPCSocket(r, ws) },
	}
	srv.ServeHTTP(hijackable{w}, r)
}

// hijackable lets the WebSocket server reach the connection through the
// router's response writer wrappers.
type hijackable struct{ http.ResponseWriter }

func (h hijackable) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(h.ResponseWriter).Hijack()
}

// rpcSocketConn is one JSON-RPC WebSocket; send serialises its writes.
type rpcSocketConn struct {
	ws *websocket.Conn
	mu sync.Mutex // guards writes to ws
}

func (c *rpcSocketConn) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return websocket.Message.Send(c.ws, string(b))
}

func (s *Server) serveRPCSocket(r *http.Request, ws *websocket.Conn) {
	ws.MaxPayloadBytes = MaxBodyBytes
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	r = r.WithContext(ctx)
	c := &rpcSocketConn{ws: ws}
	sub, err := s.cfg.Store.Subscribe(ctx, s.cfg.Projector.Position(), turn.StreamPrefix)
	if err != nil {
		_ = c.send(rpcFail(nil, rpcServerError, "the event store is unavailable: "+err.Error(), nil))
		return
	}
	defer sub.Close()
	go func() { // notifications
		defer cancel()
		s.pushNotifications(ctx, r, sub, c)
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
		if out := s.rpcSocketCall(r, msg); out != nil {
			if err := c.send(out); err != nil {
				return
			}
		}
	}
}

// rpcSocketCall answers one message (a call or a batch); nil when nothing
// is to be answered (notifications only).
func (s *Server) rpcSocketCall(r *http.Request, msg []byte) any {
	trimmed := bytes.TrimSpace(msg)
	if len(trimmed) == 0 || trimmed[0] != '[' {
		if resp, ok := s.rpcOne(r, trimmed); ok {
			return resp
		}
		return nil
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(trimmed, &batch); err != nil {
		return rpcFail(nil, rpcParseError, "parse error: "+err.Error(), nil)
	}
	if len(batch) == 0 {
		return rpcFail(nil, rpcInvalidRequest, "invalid request: empty batch", nil)
	}
	var out []rpcResponse
	for _, raw := range batch {
		if resp, ok := s.rpcOne(r, raw); ok {
			out = append(out, resp)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// pushNotifications sends each durable event's notification, as on the
// event stream, until ctx ends or a send fails.
func (s *Server) pushNotifications(ctx context.Context, r *http.Request, sub eventstore.Subscription, c *rpcSocketConn) {
	q := r.URL.Query()
	turnFilter, wsFilter := q.Get("turn_id"), q.Get("workspace_id")
	p := principalOf(r)
	if p.Authorize(domain.OpEventsSubscribe) != nil {
		<-ctx.Done() // calls only: this role may not follow events
		return
	}
	workspaces := map[string]string{}
	for {
		m, err := sub.Recv(ctx)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				s.log.Debug("rpc socket: subscription ended", "err", err)
			}
			return
		}
		if m.Event == nil {
			continue
		}
		e, err := eventcodec.DecodeUnhashed(m.Event)
		if err != nil {
			s.log.Error("rpc socket: undecodable event", "err", err)
			return
		}
		if st, ok := e.Payload.(*turn.TurnStarted); ok {
			workspaces[e.TurnID] = st.WorkspaceID
		}
		if (turnFilter != "" && e.TurnID != turnFilter) || (wsFilter != "" && s.workspaceOf(ctx, workspaces, e.TurnID) != wsFilter) {
			continue
		}
		if p.Scoped() && !p.InScope(s.workspaceOf(ctx, workspaces, e.TurnID)) {
			continue // a scoped credential's notifications carry its workspaces only
		}
		method, params := notification(&e)
		if err := c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params}); err != nil {
			return
		}
	}
}
