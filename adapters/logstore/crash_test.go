package logstore

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
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"turnstile/domain/eventstore"
)

// crashEnv names the file a crash child process appends to.
const crashEnv = "LOGSTORE_CRASH_CHILD"

const crashStreams = 6

func crashStream(i int) string { return fmt.Sprintf("turn-crash-%d", i) }

// TestCrashRecovery runs crashChild as a separate process that appends
// hash-chained events to a few streams and reports every acknowledged
// append on stdout, SIGKILLs it mid-run, and checks that the reopened file
// holds every acknowledged append, in order, with an unbroken chain. The
// same file is used across rounds, so each child also recovers the previous
// child's file and continues its chains.
func TestCrashRecovery(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events")
	acked := map[string]uint64{} // stream → acknowledged revisions + 1
	rounds := []struct {
		killAfter int           // acknowledged appends before the kill
		delay     time.Duration // then wait this long
	}{{1, 0}, {30, time.Millisecond}, {200, 0}, {500, 5 * time.Millisecond}, {100, 20 * time.Millisecond}}
	for i, r := range rounds {
		n := runCrashChild(t, path, r.killAfter, r.delay, acked)
		t.Logf("round %d: killed after %d acknowledged appends (+%v)", i, n, r.delay)
		verifyCrashFile(t, path, acked)
	}
	segs, err := listSegments(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) < 2 {
		t.Fatalf("%d segment(s): the rounds never rolled a segment", len(segs))
	}
}

// runCrashChild runs one child until it has acknowledged killAfter appends,
// waits delay, kills it, and records every acknowledgement it printed.
func runCrashChild(t *testing.T, path string, killAfter int, delay time.Duration, acked map[string]uint64) int {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
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
	deadline := time.NewTimer(testDeadline)
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
func verifyCrashFile(t *testing.T, path string, acked map[string]uint64) {
	t.Helper()
	s, err := Open(path, crashOptions)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	ctx := testCtx(t)
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

// TestMain runs the crash child instead of the tests when crashEnv is set.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashEnv); path != "" {
		crashChild(path)
	}
	os.Exit(m.Run())
}

// crashChild is the child process of TestCrashRecovery: it appends until it
// is killed.
func crashChild(path string) {
	s, err := Open(path, crashOptions)
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

// crashOptions use small segments, so that kills also land around a
// segment roll (a new file and a directory fsync).
var crashOptions = Options{SegmentSize: 64 << 10}
