package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// client talks to a running turnstile server.
type client struct {
	base  string
	token string
	http  *http.Client
}

// clientFlags registers --server, --token-file and --data on fs.
type clientFlags struct{ server, tokenFile, data string }

func (c *clientFlags) register(fs *flag.FlagSet) {
	def := os.Getenv("TURNSTILE_URL")
	if def == "" {
		def = "http://127.0.0.1:8740"
	}
	fs.StringVar(&c.server, "server", def, "server URL (TURNSTILE_URL)")
	fs.StringVar(&c.tokenFile, "token-file", "", "bearer token file (default: TURNSTILE_TOKEN, else <data>/token)")
	fs.StringVar(&c.data, "data", "", "the server's data directory, where its token is (default $STATE_DIRECTORY, else $XDG_STATE_HOME/turnstile, else ~/.local/state/turnstile)")
}

func (c *clientFlags) client() (*client, error) {
	token := strings.TrimSpace(os.Getenv("TURNSTILE_TOKEN"))
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
		}
		t, err := readTokenFile(path)
		if err != nil {
			return nil, fmt.Errorf("no token: set TURNSTILE_TOKEN or --token-file (%v)", err)
		}
		token = t
	}
	return &client{base: strings.TrimSuffix(c.server, "/"), token: token, http: &http.Client{Timeout: 5 * time.Minute}}, nil
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
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode >= 300 && !(resp.StatusCode == http.StatusConflict && out != nil && isExec(path)) {
		var e struct {
			Error apiError `json:"error"`
		}
		if json.Unmarshal(data, &e) != nil || e.Error.Code == "" {
			return resp.StatusCode, fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(data)))
		}
		e.Error.Status = resp.StatusCode
		return resp.StatusCode, &e.Error
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("decoding the answer: %w", err)
		}
	}
	return resp.StatusCode, nil
}

func isExec(path string) bool { return strings.Contains(path, "/exec") }

func printJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
