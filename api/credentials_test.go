package api

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"turnstile/adapters/boltstore"
	"turnstile/adapters/esdbstore"
	"turnstile/domain"
	"turnstile/internal/esdbtest"
)

func openStore(t testing.TB) *boltstore.Store {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "events.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestCredentialStoresShareOneStore: two credential stores over one event
// store (two instances) see each other's changes on the next
// authentication; concurrent creations of one name leave one active
// credential.
func TestCredentialStoresShareOneStore(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	a, b := NewCredentialStore(st), NewCredentialStore(st)
	admin := domain.Actor{Name: "admin", Role: domain.RoleAdmin}
	nc, err := a.Create(ctx, admin, "alice", domain.RoleApprover, []string{"ws1"})
	if err != nil {
		t.Fatal(err)
	}
	p, ok, err := b.Authenticate(ctx, nc.Token)
	if err != nil || !ok || p.Name != "alice" || p.Role != domain.RoleApprover || !p.InScope("ws1") || p.InScope("ws2") {
		t.Fatalf("b authenticates a's credential: %+v %v %v", p, ok, err)
	}
	if _, err := b.Revoke(ctx, admin, "alice", nil); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := a.Authenticate(ctx, nc.Token); ok || err != nil {
		t.Fatalf("a still accepts the credential b revoked: %v %v", ok, err)
	}
	// Concurrent creations of one name: exactly one wins.
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			s := a
			if i%2 == 1 {
				s = b
			}
			_, errs[i] = s.Create(ctx, admin, "bob", domain.RoleRuntime, nil)
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		var dup *domain.CredentialExistsError
		switch {
		case err == nil:
			won++
		case !errors.As(err, &dup):
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d concurrent creations of bob succeeded, want 1", won)
	}
}

// BenchmarkAuthenticate is the per-request cost of a named credential on
// the embedded store: the tail read of the credential stream, the lookup
// and the hash comparison.
func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	cs := NewCredentialStore(openStore(b))
	nc, err := cs.Create(ctx, domain.Actor{Name: "admin"}, "alice", domain.RoleApprover, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, ok, err := cs.Authenticate(ctx, nc.Token); !ok || err != nil {
				b.Fatal(ok, err)
			}
		}
	})
}

// BenchmarkAuthenticateESDB is the same over EventStoreDB (the in-process
// test server on loopback): one stream read per request.
func BenchmarkAuthenticateESDB(b *testing.B) {
	ctx := context.Background()
	srv := esdbtest.Start(b)
	st, err := esdbstore.Open(srv.ConnString(), esdbstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	cs := NewCredentialStore(st)
	nc, err := cs.Create(ctx, domain.Actor{Name: "admin"}, "alice", domain.RoleApprover, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, ok, err := cs.Authenticate(ctx, nc.Token); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
