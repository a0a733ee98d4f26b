package tests

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"turnstile/internal/esdbtest"
)

// TestMultiESDBServe is a helper mode, not a test: with
// TURNSTILE_ESDBTEST_LISTEN=127.0.0.1:PORT it serves an esdbtest
// EventStoreDB server on that address until SIGTERM or SIGINT, so that a
// `turnstile serve --store esdb://…` started by hand (e.g. for `turnstile
// bench`) has a server to talk to:
//
//	go test -c -o /tmp/x/tests.test ./tests/
//	cd tests && TURNSTILE_ESDBTEST_LISTEN=127.0.0.1:2113 /tmp/x/tests.test -test.run '^TestMultiESDBServe$' -test.timeout 0 -test.v
//
// Without the variable it is skipped.
func TestMultiESDBServe(t *testing.T) {
	addr := os.Getenv("TURNSTILE_ESDBTEST_LISTEN")
	if addr == "" {
		t.Skip("helper mode: set TURNSTILE_ESDBTEST_LISTEN=127.0.0.1:PORT to serve an esdbtest EventStoreDB until killed")
	}
	srv := esdbtest.NewServer()
	if err := srv.Serve(addr); err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(stop)
	fmt.Printf("esdbtest serving %s\n", srv.ConnString())
	<-stop
}
