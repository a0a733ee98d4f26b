package api_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"turnstile/adapters/logstore"
	"turnstile/api"
	"turnstile/domain/engine"
	"turnstile/projections"
)

// TestStreamsAskTheStoreFirst: the two streaming reads, /v1/events and
// /v1/audit/verify, answer 503 store_unavailable when the store is gone
// before they start, never a 200 stream. The control asks the same server
// before the store closes and gets a 200 stream.
func TestStreamsAskTheStoreFirst(t *testing.T) {
	st, err := logstore.Open(filepath.Join(t.TempDir(), "events"), logstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	proj := projections.New()
	if err := proj.Rebuild(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	token := "in-process-test-token-0123456789"
	srv := api.New(api.Config{Engine: engine.New(st, engine.Config{}), Projector: proj, Store: st, Token: token})
	srv.SetReady()
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	get := func(path string) (int, []byte) {
		t.Helper()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", hs.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return resp.StatusCode, nil // a live stream: do not read to its end
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	paths := []string{"/v1/events", "/v1/audit/verify"}
	for _, p := range paths {
		if status, body := get(p); status != http.StatusOK {
			t.Fatalf("control: GET %s with the store open: %d %s", p, status, body)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if status, body := get(p); status != http.StatusServiceUnavailable || !bytes.Contains(body, []byte(`"store_unavailable"`)) {
			t.Errorf("GET %s with the store closed: %d %s; want 503 store_unavailable", p, status, body)
		}
	}
}
