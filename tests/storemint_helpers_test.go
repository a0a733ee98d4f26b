package tests

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/adapters/esdbstore"
	"turnstile/domain/eventstore"
)

// mintAdminInStore is the agent as a client of the store of conn (an
// anonymous one, or with a stolen key): it appends a credential.created
// of an admin named name whose secret it chose, and returns its token.
func mintAdminInStore(t *testing.T, conn, name string) string {
	t.Helper()
	cl, err := esdbstore.Open(conn, esdbstore.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("premise: the agent opens the store: %v", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	secret, salt := make([]byte, 32), make([]byte, 16)
	rand.Read(secret)
	rand.Read(salt)
	secretHex := hex.EncodeToString(secret)
	h := sha256.New()
	h.Write(salt)
	h.Write([]byte(secretHex))
	id := strings.ReplaceAll(uuid.NewString(), "-", "")[:16]
	data, _ := json.Marshal(map[string]any{"id": id, "name": name, "role": "admin", "salt": hex.EncodeToString(salt),
		"hash": hex.EncodeToString(h.Sum(nil)), "created_at": time.Now().UTC(), "created_by": map[string]string{"name": "admin", "role": "admin"}})
	meta, _ := json.Marshal(map[string]any{"type": "credential.created", "schema_version": 1})
	if _, err := cl.Append(ctx, "credentials", eventstore.Any(), []eventstore.EventData{{ID: uuid.New(), Type: "credential.created", Data: data, Metadata: meta}}); err != nil {
		t.Fatalf("premise: the agent appends to the store: %v", err)
	}
	return "tsk_" + id + "_" + secretHex
}
