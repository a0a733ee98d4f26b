package tests

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"turnstile/internal/esdbtest"
)

// readModelPaths are the GET responses the read models answer for the
// turns ids (and the request of an old turn, asked with its turn).
func readModelPaths(ids []string, oldTurn, oldRequest string) []string {
	out := []string{"/v1/turns", "/v1/turns?limit=2", "/v1/approvals?status=all", "/v1/approvals?status=pending",
		"/v1/approvals?status=all&turn_id=" + oldTurn, "/v1/approvals/" + oldRequest + "?turn_id=" + oldTurn}
	for _, id := range ids {
		for _, p := range []string{"", "/timeline", "/audit", "/audit?offset=1&limit=2", "/events"} {
			out = append(out, "/v1/turns/"+id+p)
		}
	}
	return out
}

func getAll(t *testing.T, s *Server, paths []string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, p := range paths {
		status, body := s.Request("GET", p, nil)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", p, status, body)
		}
		out[p] = body
	}
	return out
}

func sameResponses(t *testing.T, when string, want, got map[string][]byte) {
	t.Helper()
	for k, b := range want {
		if !bytes.Equal(b, got[k]) {
			t.Errorf("%s: GET %s differs:\nbefore %s\nafter  %s", when, k, b, got[k])
		}
	}
}

// logSince is what the server logged after mark bytes of output.
func logSince(s *Server, mark int) string { return s.Output()[mark:] }

// waitLog waits until the server has logged want after mark bytes of
// output, and returns what it logged: a line written before /readyz
// answered can still be in the pipe its stderr is copied from (the deadline
// is a hang guard).
func waitLog(s *Server, mark int, want string) (string, bool) {
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		log := logSince(s, mark)
		if ok := strings.Contains(log, want); ok || time.Now().After(deadline) {
			return log, ok
		}
	}
}

// TestOldTurnServedFromItsStream: with two ended turns held in memory, a
// turn that ended before them is evicted (its request leaves the in-memory
// listing), and its view, timeline, audit and approvals, now folded from
// its stream, are exactly what they were while it was held; an open turn's
// are served from memory (control).
func TestOldTurnServedFromItsStream(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "", "--recent-turns", "2")
	root := workspace(t)
	s.startTurn("old", "ws-c", "supervised", root)
	ask := s.decide("old", "c1", "exec_command", map[string]any{"cmd": "ls"})
	s.respond(ask.Request.RequestID, "allow_once")
	s.decide("old", "c2", "task_list", nil)
	s.JSON("POST", "/v1/turns/old/complete", nil, http.StatusOK, nil)
	s.startTurn("live", "ws-c", "supervised", root)
	s.decide("live", "c1", "exec_command", map[string]any{"cmd": "ls"})

	paths := readModelPaths([]string{"old", "live"}, "old", ask.Request.RequestID)
	held := getAll(t, s, paths)
	if !bytes.Contains(held["/v1/approvals?status=all"], []byte(ask.Request.RequestID)) {
		t.Fatal("control: the held turn's request is not listed")
	}
	for _, id := range []string{"e1", "e2"} {
		s.startTurn(id, "ws-c", "full_access", root)
		s.JSON("POST", "/v1/turns/"+id+"/complete", nil, http.StatusOK, nil)
	}
	if st, body := s.Request("GET", "/v1/approvals?status=all", nil); st != http.StatusOK || bytes.Contains(body, []byte(ask.Request.RequestID)) {
		t.Fatalf("the old turn was not evicted (its request is still listed): %d %s", st, body)
	}
	if st, _ := s.Request("GET", "/v1/approvals/"+ask.Request.RequestID, nil); st != http.StatusNotFound {
		t.Fatalf("an evicted request without its turn: %d, want 404", st)
	}
	evicted := getAll(t, s, paths)
	for _, p := range paths {
		if strings.HasPrefix(p, "/v1/turns/") || strings.Contains(p, "turn_id=old") {
			if !bytes.Equal(withoutPosition(t, held[p]), withoutPosition(t, evicted[p])) {
				t.Errorf("GET %s: held and folded from the stream differ:\nheld   %s\nstream %s", p, held[p], evicted[p])
			}
		}
	}

	// An evicted turn keeps its workspace's scoping: an auditor of
	// another workspace reads nothing of it, even naming the turn; one of
	// its workspace reads it all (the control).
	token := func(name, ws string) *Server {
		var out struct {
			Token string `json:"token"`
		}
		s.JSON("POST", "/v1/credentials", map[string]any{"name": name, "role": "auditor", "workspaces": []string{ws}}, http.StatusCreated, &out)
		return roAs(s, out.Token)
	}
	other, own := token("aud-other", "ws-x"), token("aud-own", "ws-c")
	for _, p := range []string{"/v1/turns/old", "/v1/turns/old/audit", "/v1/turns/old/timeline", "/v1/approvals/" + ask.Request.RequestID + "?turn_id=old"} {
		if st, body := other.Request("GET", p, nil); st != http.StatusForbidden && st != http.StatusNotFound {
			t.Errorf("another workspace's auditor: GET %s: %d %s", p, st, body)
		}
		if st, body := own.Request("GET", p, nil); st != http.StatusOK || !bytes.Equal(body, evicted[p]) {
			t.Errorf("control: the workspace's auditor: GET %s: %d %s", p, st, body)
		}
	}
	if st, body := other.Request("GET", "/v1/approvals?status=all&turn_id=old", nil); st != http.StatusOK || bytes.Contains(body, []byte(ask.Request.RequestID)) {
		t.Errorf("another workspace's auditor lists the old turn's request: %d %s", st, body)
	}
}

// TestCheckpointRestarts restarts the server over one data directory in
// every way a checkpoint can meet: a clean restart (restored from the
// checkpoint), a damaged and a truncated checkpoint (discarded, replayed),
// a SIGKILL after more events with a half-written temporary file beside the
// checkpoint (restored, tail replayed), and a store restored from a backup
// older than the checkpoint (discarded, replayed). Every time the read
// models answer exactly as before.
func TestCheckpointRestarts(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "", "--recent-turns", "2")
	root := workspace(t)
	cp := filepath.Join(s.Data, "readmodels.checkpoint")
	s.startTurn("old", "ws-c", "supervised", root)
	ask := s.decide("old", "c1", "exec_command", map[string]any{"cmd": "ls"})
	s.respond(ask.Request.RequestID, "deny")
	s.JSON("POST", "/v1/turns/old/interrupt", map[string]any{"reason": "stop"}, http.StatusOK, nil)
	for _, id := range []string{"e1", "e2"} {
		s.startTurn(id, "ws-c", "auto_accept_edits", root)
		s.decide(id, "c1", "task_list", nil)
		s.JSON("POST", "/v1/turns/"+id+"/complete", nil, http.StatusOK, nil)
	}
	s.startTurn("live", "ws-c", "supervised", root)
	s.decide("live", "c1", "web_fetch", map[string]any{"url": "https://example.com/x"})
	ids := []string{"old", "e1", "e2", "live"}
	paths := readModelPaths(ids, "old", ask.Request.RequestID)

	restart := func(what string, prepare func()) (mark int) {
		t.Helper()
		if err := s.Stop(); err != nil {
			t.Fatalf("stop before the %s restart: %v\n%s", what, err, s.Output())
		}
		if prepare != nil {
			prepare()
		}
		mark = len(s.Output())
		s.start()
		return mark
	}
	expect := func(mark int, want string) {
		t.Helper()
		if log, ok := waitLog(s, mark, want); !ok {
			t.Fatalf("the start did not log %q:\n%s", want, log)
		}
	}

	before := getAll(t, s, paths)
	at := restart("clean", nil)
	expect(at, "read models restored from a checkpoint")
	sameResponses(t, "clean restart", before, getAll(t, s, paths))

	b, err := os.ReadFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	at = restart("flipped", func() {
		d := bytes.Clone(b)
		d[len(d)/2] ^= 0x20
		if err := os.WriteFile(cp, d, 0o600); err != nil {
			t.Fatal(err)
		}
	})
	expect(at, "read-model checkpoint discarded")
	expect(at, "checksum")
	sameResponses(t, "damaged checkpoint", before, getAll(t, s, paths))

	at = restart("truncated", func() {
		if err := os.WriteFile(cp, b[:len(b)/3], 0o600); err != nil {
			t.Fatal(err)
		}
	})
	expect(at, "read-model checkpoint discarded")
	sameResponses(t, "truncated checkpoint", before, getAll(t, s, paths))

	// A backup of the store as it is now (the server is stopped).
	backupDir := t.TempDir()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	copyStore(t, s.Data, backupDir)
	s.start()
	atBackup := getAll(t, s, paths)

	// More events after the checkpoint, then SIGKILL while a new
	// checkpoint is half-written: the old checkpoint plus the tail.
	s.respond(s.decide("live", "c2", "exec_command", map[string]any{"cmd": "make"}).Request.RequestID, "allow_once")
	s.decide("live", "c3", "task_list", nil)
	before = getAll(t, s, paths)
	s.Kill()
	if err := os.WriteFile(cp+".tmp", []byte("turnstile-readmodels-checkpoint 1 "), 0o600); err != nil {
		t.Fatal(err)
	}
	mark := len(s.Output())
	s.start()
	expect(mark, "read models restored from a checkpoint")
	sameResponses(t, "SIGKILL with a half-written checkpoint", before, getAll(t, s, paths))

	// The store restored from the backup: the checkpoint (written at the
	// clean stop below) is newer than it, and is discarded.
	at = restart("restored store", func() {
		copyStore(t, backupDir, s.Data)
	})
	expect(at, "read-model checkpoint discarded")
	expect(at, "does not hold the checkpoint's last event")
	sameResponses(t, "store restored from a backup", atBackup, getAll(t, s, paths))
}

// withoutPosition drops the log position of an approvals listing (the log
// moved on between the two reads).
func withoutPosition(t *testing.T, b []byte) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || m["approvals"] == nil {
		return b
	}
	delete(m, "position")
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// copyStore copies the embedded store of data directory from into to,
// replacing what is there: the log store's directory (events/) or, in a
// data directory of an earlier version, the bbolt file (events.db).
func copyStore(t *testing.T, from, to string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(from, "events.db")); err == nil {
		copyFile(t, filepath.Join(from, "events.db"), filepath.Join(to, "events.db"))
		return
	}
	src, dst := filepath.Join(from, "events"), filepath.Join(to, "events")
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCheckpointOnEventStoreDB: with an EventStoreDB store the checkpoint
// is a local file in the data directory; a restart restores it (held turns
// folded again from the server's streams) and answers as before.
func TestCheckpointOnEventStoreDB(t *testing.T) {
	t.Parallel()
	store := esdbtest.Start(t)
	s := miStartESDB(t, store, miToken(t), "--recent-turns", "1")
	root := workspace(t)
	s.startTurn("old", "ws-c", "supervised", root)
	ask := s.decide("old", "c1", "exec_command", map[string]any{"cmd": "ls"})
	s.respond(ask.Request.RequestID, "allow_once")
	s.JSON("POST", "/v1/turns/old/complete", nil, http.StatusOK, nil)
	s.startTurn("e1", "ws-c", "full_access", root)
	s.JSON("POST", "/v1/turns/e1/complete", nil, http.StatusOK, nil)
	s.startTurn("live", "ws-c", "supervised", root)
	s.decide("live", "c1", "web_fetch", map[string]any{"url": "https://example.com/x"})
	paths := readModelPaths([]string{"old", "e1", "live"}, "old", ask.Request.RequestID)
	before := getAll(t, s, paths)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	matches, _ := filepath.Glob(filepath.Join(s.Data, "*.readmodels.checkpoint"))
	if len(matches) != 1 {
		t.Fatalf("checkpoint files in the data directory: %v", matches)
	}
	mark := len(s.Output())
	s.start()
	if log, ok := waitLog(s, mark, "read models restored from a checkpoint"); !ok {
		t.Fatalf("the start did not restore the checkpoint:\n%s", log)
	}
	sameResponses(t, "restart on EventStoreDB", before, getAll(t, s, paths))
}
