package tests

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"turnstile/internal/esdbtest"
)

// serveESDBTest is a helper mode of the test binary, not a test: with
// TURNSTILE_ESDBTEST_LISTEN=127.0.0.1:PORT, TestMain serves an esdbtest
// EventStoreDB server on that address until SIGTERM or SIGINT, so that a
// `turnstile serve --store esdb://…` started by hand (e.g. for `turnstile
// bench`, docs/benchmarks.md) has a server to talk to:
//
//	go test -c -o /tmp/tests.test ./tests/
//	TURNSTILE_ESDBTEST_LISTEN=127.0.0.1:2113 /tmp/tests.test
//
// It returns false when the variable is not set.
func serveESDBTest() bool {
	addr := os.Getenv("TURNSTILE_ESDBTEST_LISTEN")
	if addr == "" {
		return false
	}
	srv := esdbtest.NewServer()
	if err := srv.Serve(addr); err != nil {
		fmt.Fprintln(os.Stderr, "esdbtest:", err)
		os.Exit(1)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	fmt.Printf("esdbtest serving %s\n", srv.ConnString())
	<-stop
	srv.Stop()
	return true
}
