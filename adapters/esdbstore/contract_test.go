package esdbstore

import (
	"os"
	"testing"

	"turnstile/adapters/storetest"
	"turnstile/domain/eventstore"
	"turnstile/internal/esdbtest"
)

// envServer names the environment variable that holds the connection string
// of a real EventStoreDB/KurrentDB server for the tests that use one.
const envServer = "TURNSTILE_TEST_ESDB"

// openStore opens a store on connString and closes it when the test ends.
func openStore(t testing.TB, connString string, opts Options) *Store {
	t.Helper()
	s, err := Open(connString, opts)
	if err != nil {
		t.Fatalf("Open(%q): %v", connString, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestContract runs the shared contract suite against the in-memory test
// server (one server shared by every subtest, as a real one would be) and,
// when TURNSTILE_TEST_ESDB is set, against that real server.
func TestContract(t *testing.T) {
	t.Run("TestServer", func(t *testing.T) {
		srv := esdbtest.Start(t)
		storetest.Run(t, func(t *testing.T) eventstore.Store {
			return openStore(t, srv.ConnString(), Options{})
		})
	})
	t.Run("RealServer", func(t *testing.T) {
		conn := os.Getenv(envServer)
		if conn == "" {
			t.Skip(envServer + " is not set")
		}
		storetest.Run(t, func(t *testing.T) eventstore.Store {
			return openStore(t, conn, Options{})
		})
	})
}
