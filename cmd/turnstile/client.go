package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"turnstile/api"
	"turnstile/domain/eventstore"
)

// client talks to a running turnstile server.
type client struct {
	base  string
	token string
	// tokenSource says where the token came from, for a 401.
	tokenSource string
	// serverArg is " --server URL" when the server is not the default,
	// for the commands a hint prints; else empty.
	serverArg string
	http      *http.Client
	// users are who may own a server on this machine (serverpeer.go).
	users serverUsers
	// after is read-your-writes: the latest position a command of this
	// client answered with, passed as ?after= on its reads of the read
	// models (commands do not wait for them). Guarded by mu (bench shares
	// one client between goroutines).
	mu    sync.Mutex
	after eventstore.Position
}

// defaultServer is the server a client command talks to without --server
// or TURNSTILE_URL.
const defaultServer = "http://127.0.0.1:8740"

// clientFlags registers --server, --token-file and --data on fs.
type clientFlags struct {
	server, tokenFile, data, serverUser, serverKey string
	// keyFromData reads the server's key from the data directory when no
	// --server-key is given (not for the hook, whose environment the
	// agent sets: it takes the key from its command line only).
	keyFromData bool
	// hook is the Claude Code hook: its messages name hook install.
	hook bool
}

func (c *clientFlags) register(fs *flag.FlagSet) {
	c.keyFromData = true
	def := os.Getenv("TURNSTILE_URL")
	if def == "" {
		def = defaultServer
	}
	fs.StringVar(&c.server, "server", def, "server URL (default: TURNSTILE_URL, else "+defaultServer+")")
	fs.StringVar(&c.tokenFile, "token-file", "", "bearer token file (default: TURNSTILE_TOKEN, else <data>/token)")
	fs.StringVar(&c.serverUser, "server-user", os.Getenv("TURNSTILE_SERVER_USER"), "the user a server on this machine runs as, the only one trusted with the token (default: TURNSTILE_SERVER_USER, else root or you)")
	fs.StringVar(&c.serverKey, "server-key", os.Getenv("TURNSTILE_SERVER_KEY"), "the server's key (ed25519:…, as serve prints it, or a file holding it, such as DATA/server-key.pub): a client asks the server to prove it holds it before it sends a credential (default: TURNSTILE_SERVER_KEY, else the data directory's server-key.pub)")
	fs.StringVar(&c.data, "data", "", "the server's data directory, where its token is (default $STATE_DIRECTORY, else $XDG_STATE_HOME/turnstile, else ~/.local/state/turnstile)")
}

func (c *clientFlags) client() (*client, error) {
	users, err := parseServerUser(c.serverUser, "--server-user")
	if err != nil {
		return nil, err
	}
	token, source := strings.TrimSpace(os.Getenv("TURNSTILE_TOKEN")), "TURNSTILE_TOKEN"
	if token != "" {
		if err := checkToken(token, "TURNSTILE_TOKEN"); err != nil {
			return nil, err
		}
	} else {
		path := c.tokenFile
		if path == "" {
			dir, err := dataDir(c.data)
			if err != nil {
				return nil, err
			}
			path = filepath.Join(dir, "token")
			source = "the admin token file " + path + " (--data)"
		} else {
			source = "--token-file " + path
		}
		t, err := readTokenFile(path)
		if err != nil {
			return nil, fmt.Errorf("no token: set TURNSTILE_TOKEN or --token-file (%v)", err)
		}
		token = t
	}
	base := strings.TrimSuffix(c.server, "/")
	// Every server but one reached over TLS is asked for the proof (the
	// scheme as net/url reads it: HTTP:// is http too, review 199).
	if u, err := url.Parse(base); err != nil || !strings.EqualFold(u.Scheme, "https") {
		users.plain = true
	}
	keyData := ""
	if c.keyFromData {
		keyData, _ = dataDir(c.data) // no data directory: no key from it
	}
	if err := users.pinKey(c.serverKey, keyData); err != nil {
		return nil, err
	}
	if c.hook {
		users.keyHint = keyHintHook
	}
	cl := &client{base: base, token: token, tokenSource: source, users: users,
		http: &http.Client{Timeout: 5 * time.Minute, Transport: users.transport()}}
	// A script that sent a command (curl, another turnstile command) passes
	// the position it answered with, so that this command's reads include it.
	if v := strings.TrimSpace(os.Getenv("TURNSTILE_AFTER")); v != "" {
		p, err := eventstore.ParsePosition(v)
		if err != nil {
			return nil, fmt.Errorf("TURNSTILE_AFTER=%q: must be a store position, as a command's answer returns it (e.g. 1234)", v)
		}
		cl.after = p
	}
	if base != defaultServer {
		cl.serverArg = " --server " + shellQuote(base)
	}
	return cl, nil
}

// apiError is an error answer of the server.
type apiError struct {
	Status  int
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details"`
}

func (e *apiError) Error() string { return fmt.Sprintf("%s (HTTP %d %s)", e.Message, e.Status, e.Code) }

// do sends a request and decodes a 2xx answer into out; it returns the status.
func (c *client) do(method, path string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+c.withAfter(method, path), rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, c.unreachable(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	var e struct {
		Error apiError `json:"error"`
	}
	isErr := json.Unmarshal(data, &e) == nil && e.Error.Code != ""
	// An exec's 409 is an answer (the call had already started) unless it
	// is an error (tool_call_reused: the same id with other content).
	if resp.StatusCode >= 300 && (isErr || !(resp.StatusCode == http.StatusConflict && out != nil && isExec(path))) {
		if !isErr {
			return resp.StatusCode, fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(data)))
		}
		e.Error.Status = resp.StatusCode
		if resp.StatusCode == http.StatusUnauthorized {
			e.Error.Message += "; the token came from " + c.tokenSource
		}
		return resp.StatusCode, &e.Error
	}
	if method != "GET" {
		c.remember(resp.Header.Get(api.PositionHeader), data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("decoding the answer: %w", err)
		}
	}
	return resp.StatusCode, nil
}

// remember keeps a command answer's position (its body's "position", else
// the header) if it is the latest this client has seen.
func (c *client) remember(header string, body []byte) {
	var v struct {
		Position string `json:"position"`
	}
	if json.Unmarshal(body, &v) != nil || v.Position == "" {
		v.Position = header
	}
	p, err := eventstore.ParsePosition(v.Position)
	if v.Position == "" || err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.after.Less(p) {
		c.after = p
	}
}

// lastPosition is the latest position a command of this client answered
// with (eventstore.Start before any).
func (c *client) lastPosition() eventstore.Position {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.after
}

// withAfter adds ?after= (after_position on the list of turns, whose after
// is a paging cursor) to a read of the read models once this client has
// sent a command: the read then includes what the command did.
func (c *client) withAfter(method, path string) string {
	p := c.lastPosition()
	if method != "GET" || p == eventstore.Start {
		return path
	}
	bare, query, _ := strings.Cut(path, "?")
	param := readModelParam(bare)
	if param == "" {
		return path
	}
	q, err := url.ParseQuery(query)
	if err != nil || q.Has(param) {
		return path
	}
	if query != "" {
		query += "&"
	}
	return bare + "?" + query + param + "=" + p.String()
}

// readModelParam is the read-your-writes parameter of a GET served from
// the read models, "" for any other path (the raw events, verify, metrics…).
func readModelParam(path string) string {
	switch {
	case path == "/v1/turns":
		return "after_position"
	case path == "/v1/approvals" || strings.HasPrefix(path, "/v1/approvals/"):
		return "after"
	}
	rest, ok := strings.CutPrefix(path, "/v1/turns/")
	if !ok || rest == "" {
		return ""
	}
	_, sub, _ := strings.Cut(rest, "/")
	switch sub {
	case "", "timeline", "audit", "explain":
		return "after"
	}
	return ""
}

// unreachable names the server a request could not reach and how to
// point the command elsewhere.
func (c *client) unreachable(err error) error {
	var wrong *wrongServerError
	var ue *url.Error
	if errors.As(err, &wrong) {
		return fmt.Errorf("turnstile at %s: %w", c.base, wrong)
	}
	if errors.Is(err, errUnverifiedServer) || errors.Is(err, errNoServerKey) || errors.Is(err, errUnproven) {
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("turnstile at %s: %w", c.base, err)
	}
	if errors.As(err, &ue) && ue.Timeout() {
		return fmt.Errorf("turnstile at %s did not answer in time: %w", c.base, err)
	}
	return fmt.Errorf("cannot reach turnstile at %s: is `serve` running? (--server / TURNSTILE_URL)\n  (%w)", c.base, err)
}

func isExec(path string) bool { return strings.Contains(path, "/exec") }

func printJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
