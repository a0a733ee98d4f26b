package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrateBoltDataDirectory takes a data directory written by an earlier
// version (only DATA/events.db, the bbolt store) through its upgrade: the
// server keeps using the bbolt file and says so; `turnstile migrate`
// refuses while that server holds the file, refuses a source whose hash
// chain is broken (switching nothing), and otherwise converts it once with
// progress on stderr; the server then uses the log store with every event
// as it was (ids, versions, hashes), keeps working across a restart, and
// names the old file it no longer uses, which still holds the history as it
// was; a second migrate changes nothing.
func TestMigrateBoltDataDirectory(t *testing.T) {
	data := t.TempDir()
	boltFile := filepath.Join(data, "events.db")
	root := workspace(t)

	// An earlier version's data directory.
	s := StartServer(t, data, "--store", "bolt:"+boltFile)
	s.startTurn("m1", "tamperedworkspace", "supervised", root)
	ask := s.decide("m1", "c1", "exec_command", map[string]any{"cmd": "make"})
	s.respond(ask.Request.RequestID, "allow_for_turn")
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(data, "events")); !os.IsNotExist(err) {
		t.Fatalf("--store bolt: created the log store too: %v", err)
	}

	// Without --store the server keeps the bbolt file and says how to move.
	s.Args = nil
	mark := len(s.Output())
	s.start()
	for _, want := range []string{"embedded bbolt " + boltFile, "turnstile migrate"} {
		if out, ok := waitLog(s, mark, want); !ok {
			t.Fatalf("the banner does not name the bbolt store and migrate:\n%s", out)
		}
	}
	s.startTurn("m2", "ws", "full_access", root)
	s.decide("m2", "c1", "read_file", map[string]any{"path": "a.txt"})
	before1, raw1 := s.events("m1")
	_, raw2 := s.events("m2")

	// Refused while the server holds the file.
	if _, errOut, code := runCLI(t, "migrate", "--data", data); code == 0 || !strings.Contains(errOut, "stop the server first") {
		t.Fatalf("migrate with the server running: exit %d %s", code, errOut)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}

	// A copy whose chain is broken is refused and nothing is switched.
	bad := t.TempDir()
	orig, err := os.ReadFile(boltFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "events.db"), orig, 0o600); err != nil {
		t.Fatal(err)
	}
	tamper(t, bad, "tamperedworkspace") // turn.started of m1: version 1 no longer chains
	if _, errOut, code := runCLI(t, "migrate", "--data", bad); code == 0 || !strings.Contains(errOut, "hash chain broken at turn-m1") || !strings.Contains(errOut, "nothing switched") {
		t.Fatalf("migrate of a broken chain: exit %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(bad, "events")); !os.IsNotExist(err) {
		t.Fatalf("a refused migration switched the directory: %v", err)
	}

	// The migration, over what an interrupted one left behind.
	left := filepath.Join(data, "events.migrating")
	if err := os.MkdirAll(left, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(left, "00000000000000000000.seg"), []byte("half a frame"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Ten events: the two turns' nine and the store's digest key, which
	// the migration copies with them.
	out, errOut, code := runCLI(t, "migrate", "--data", data)
	if code != 0 || !strings.Contains(errOut, "left by an interrupted migration") || !strings.Contains(out, "migrated 10 events (2 turns, hash chains verified)") ||
		!strings.Contains(errOut, "copying") || !strings.Contains(errOut, "verifying") || !strings.Contains(errOut, "100.0% 10/10 events") {
		t.Fatalf("migrate: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(boltFile); err != nil {
		t.Fatalf("the bbolt file was not kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(data, "events.migrating")); !os.IsNotExist(err) {
		t.Fatalf("the migration's work directory remains: %v", err)
	}

	mark = len(s.Output())
	s.start()
	for _, want := range []string{"embedded log " + filepath.Join(data, "events"), boltFile + " was migrated"} {
		if out, ok := waitLog(s, mark, want); !ok {
			t.Fatalf("the banner after migrating:\n%s", out)
		}
	}
	after1, got1 := s.events("m1")
	if _, got2 := s.events("m2"); !bytes.Equal(got1, raw1) || !bytes.Equal(got2, raw2) {
		t.Fatalf("events differ after the migration:\n%s\n%s", raw1, got1)
	}
	if len(after1) != len(before1) || len(after1) == 0 {
		t.Fatalf("m1: %d events before, %d after", len(before1), len(after1))
	}
	if out, errOut, code := s.CLI("audit", "verify", "--all", "--quiet"); code != 0 || !strings.Contains(out, "ok: 2 turns, 9 events") {
		t.Fatalf("audit verify after the migration: %d %s%s", code, out, errOut)
	}
	// The migrated turn goes on: its grant is there, new events chain on.
	if d := s.decide("m1", "c2", "exec_command", map[string]any{"cmd": "make"}); d.Reason != "cached_approval" {
		t.Fatalf("decision on the migrated turn: %+v", d)
	}
	s.Restart()
	if evs, _ := s.events("m1"); len(evs) != len(before1)+1 {
		t.Fatalf("after a restart m1 has %d events, want %d", len(evs), len(before1)+1)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runCLI(t, "migrate", "--data", data); code != 0 || !strings.Contains(out, "already uses the log store") {
		t.Fatalf("second migrate: exit %d %s%s", code, out, errOut)
	}
	// The kept file still holds the history as it was before the migration.
	s.Args = []string{"--store", "bolt:" + boltFile}
	s.start()
	if _, kept := s.events("m1"); !bytes.Equal(kept, raw1) {
		t.Fatalf("the kept bbolt file changed:\n%s\n%s", raw1, kept)
	}
}
