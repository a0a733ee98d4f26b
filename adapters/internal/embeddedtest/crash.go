package embeddedtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

// Crash describes a store to CrashRecovery and CrashChild.
type Crash struct {
	// Env names the environment variable that makes the test binary a
	// crash child appending to the store at its value.
	Env string
	// Open opens the store at path (in the child and for every check).
	Open func(path string) (Store, error)
	// Reopened, when set, logs what the store did on a reopen after a kill.
	Reopened func(t *testing.T, s Store)
	// Finally, when set, checks the store's files after the last round.
	Finally func(t *testing.T, path string)
}

// CrashChild runs the crash child instead of the tests when c.Env is set;
// call it first thing in the store package's TestMain.
func CrashChild(c Crash) {
	if path := os.Getenv(c.Env); path != "" {
		crashChild(c, path)
	}
}

const crashStreams = 6

func crashStream(i int) string { return fmt.Sprintf("turn-crash-%d", i) }

// CrashRecovery runs crashChild as a separate process that appends
// hash-chained events to a few streams and reports every acknowledged
// append on stdout, SIGKILLs it mid-run, and checks that the reopened file
// holds every acknowledged append, in order, with an unbroken chain. The
// same file is used across rounds, so each child also recovers the previous
// child's file and continues its chains.
func CrashRecovery(t *testing.T, k Kind, c Crash) {
	path := k.path(t)
	acked := map[string]uint64{} // stream → acknowledged revisions + 1
	rounds := []struct {
		killAfter int           // acknowledged appends before the kill
		delay     time.Duration // then wait this long
	}{{1, 0}, {30, time.Millisecond}, {200, 0}, {500, 5 * time.Millisecond}, {100, 20 * time.Millisecond}}
	for i, r := range rounds {
		n := runCrashChild(t, c.Env, path, r.killAfter, r.delay, acked)
		t.Logf("round %d: killed after %d acknowledged appends (+%v)", i, n, r.delay)
		verifyCrashFile(t, c, path, acked)
	}
	if c.Finally != nil {
		c.Finally(t, path)
	}
}

// runCrashChild runs one child until it has acknowledged killAfter appends,
// waits delay, kills it, and records every acknowledgement it printed.
func runCrashChild(t *testing.T, env, path string, killAfter int, delay time.Duration, acked map[string]uint64) int {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), env+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	deadline := time.NewTimer(Deadline)
	defer deadline.Stop()
	n, killed := 0, false
	for done := false; !done; {
		select {
		case line, ok := <-lines:
			if !ok {
				done = true
				break
			}
			stream, rev, ok := parseAck(line)
			if !ok {
				continue
			}
			if rev+1 > acked[stream] {
				acked[stream] = rev + 1
			}
			n++
			if n == killAfter && !killed {
				time.Sleep(delay)
				if err := cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				killed = true
			}
		case <-deadline.C:
			_ = cmd.Process.Kill()
			t.Fatalf("child hung after %d acknowledgements; stderr:\n%s", n, stderr.String())
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !killed || !errors.As(err, &exit) || exit.ExitCode() != -1 {
		t.Fatalf("child exited by itself after %d acknowledgements (%v); stderr:\n%s", n, err, stderr.String())
	}
	return n
}

func parseAck(line string) (string, uint64, bool) {
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != "ack" {
		return "", 0, false
	}
	rev, err := strconv.ParseUint(f[2], 10, 64)
	return f[1], rev, err == nil
}

// verifyCrashFile reopens path and checks every acknowledged event is there
// with an unbroken chain, and the log is gapless.
func verifyCrashFile(t *testing.T, c Crash, path string, acked map[string]uint64) {
	t.Helper()
	s, err := c.Open(path)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	if c.Reopened != nil {
		c.Reopened(t, s)
	}
	ctx := Ctx(t)
	total := 0
	for i := range crashStreams {
		stream := crashStream(i)
		evs, err := s.ReadStream(ctx, stream, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if uint64(len(evs)) < acked[stream] {
			t.Fatalf("%s: %d events stored, %d acknowledged", stream, len(evs), acked[stream])
		}
		if _, err := checkChain(evs); err != nil {
			t.Fatalf("%s: %v", stream, err)
		}
		total += len(evs)
	}
	all, err := s.ReadAll(ctx, eventstore.Start, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != total {
		t.Fatalf("log has %d events, streams %d", len(all), total)
	}
	for i, e := range all {
		if e.Position.Commit != uint64(i+1) {
			t.Fatalf("event %d at position %s; positions must be 1, 2, 3, …", i, e.Position)
		}
	}
}

// checkChain checks revisions 0, 1, … and that each event's data starts
// with the SHA-256 of the previous event's data (zeros for the first). It
// returns the hash of the last event's data.
func checkChain(evs []eventstore.RecordedEvent) ([32]byte, error) {
	var prev [32]byte
	for i, e := range evs {
		if e.Revision != uint64(i) {
			return prev, fmt.Errorf("event %d has revision %d", i, e.Revision)
		}
		if len(e.Data) < 32 || !bytes.Equal(e.Data[:32], prev[:]) {
			return prev, fmt.Errorf("revision %d breaks the hash chain", i)
		}
		prev = sha256.Sum256(e.Data)
	}
	return prev, nil
}

// crashChild is the child process of CrashRecovery: it appends until it
// is killed.
func crashChild(c Crash, path string) {
	s, err := c.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(3)
	}
	var out sync.Mutex
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	for i := range crashStreams {
		go func() {
			stream := crashStream(i)
			ctx := context.Background()
			stored, err := s.ReadStream(ctx, stream, 0, 0)
			if err != nil {
				fail(err)
			}
			prev, err := checkChain(stored)
			if err != nil {
				fail(fmt.Errorf("%s at start: %w", stream, err))
			}
			for rev := uint64(len(stored)); ; rev++ {
				data := make([]byte, 32+64+int(rev%8)*64)
				copy(data, prev[:])
				_, _ = rand.Read(data[32:])
				exp := eventstore.NoStream()
				if rev > 0 {
					exp = eventstore.Exactly(rev - 1)
				}
				ev := eventstore.EventData{ID: uuid.New(), Type: "crash.event", Data: data}
				if _, err := s.Append(ctx, stream, exp, []eventstore.EventData{ev}); err != nil {
					fail(fmt.Errorf("append %s@%d: %w", stream, rev, err))
				}
				prev = sha256.Sum256(data)
				out.Lock()
				_, err := fmt.Fprintf(os.Stdout, "ack %s %d\n", stream, rev)
				out.Unlock()
				if err != nil {
					fail(err)
				}
			}
		}()
	}
	select {} // until killed
}
