package main

import (
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"testing"

	"turnstile/internal/serverid"
)

// proving wraps h in a server's proof of a key of its own for the address
// ln listens on, as serve answers it, and returns the key clients pin.
func proving(t *testing.T, ln net.Listener, h http.Handler) (http.Handler, string) {
	t.Helper()
	id, _, err := serverid.LoadOrCreate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	id.SetAddresses([]string{ln.Addr().String()})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != serverid.Path {
			h.ServeHTTP(w, r)
			return
		}
		nonce, err := hex.DecodeString(r.URL.Query().Get("nonce"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(id.Sign(nonce))
	}), id.Key()
}
