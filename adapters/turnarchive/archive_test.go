package turnarchive

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

func open(t *testing.T, path string) *Archive {
	t.Helper()
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func scan(t *testing.T, a *Archive, after, ws string, limit int) []string {
	t.Helper()
	return scanStatus(t, a, after, ws, "", limit)
}

func scanStatus(t *testing.T, a *Archive, after, ws, status string, limit int) []string {
	t.Helper()
	var ids []string
	if err := a.Scan(after, ws, status, func(id string, rec []byte) bool {
		if want := "rec-" + id; !strings.HasPrefix(string(rec), want) {
			t.Fatalf("turn %s has record %q", id, rec)
		}
		ids = append(ids, id)
		return limit <= 0 || len(ids) < limit
	}); err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestArchiveKeepsWhatWasSynced: records written in memory, in batches and
// synced read back the same, in id order, by workspace, after a reopen;
// a turn moved to another workspace leaves the first one's listing; Reset
// empties the archive under a new epoch, durably, and the epoch is
// otherwise stable across reopens.
func TestArchiveKeepsWhatWasSynced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "readmodels.archive")
	a := open(t, path)
	epoch := a.Epoch()
	n := flushEvery + 100 // one batch written, the rest gathered
	for i := range n {
		id := fmt.Sprintf("t%05d", n-1-i)
		if err := a.Put(id, "ws"+strconv.Itoa(i%2), []string{"completed", "failed", "interrupted"}[i%3], []byte("rec-"+id), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Put("t00003", "ws1", "completed", []byte("rec-t00003 again"), nil); err != nil { // a second put of one turn
		t.Fatal(err)
	}
	// Workspaces whose names extend ws0's, one by a NUL: never in its
	// listing.
	for _, ws := range []string{"ws0\x00t00004", "ws00"} {
		if err := a.Put("t00004", ws, "completed", []byte("rec-t00004"), nil); err != nil {
			t.Fatal(err)
		}
		if err := a.Sync(); err != nil {
			t.Fatal(err)
		}
		for _, id := range scan(t, a, "", "ws0", 0) {
			if id == "t00004" {
				t.Fatalf("t00004 of workspace %q is listed in ws0", ws)
			}
		}
		if ids := scan(t, a, "", ws, 0); len(ids) != 1 || ids[0] != "t00004" {
			t.Fatalf("workspace %q lists %v", ws, ids)
		}
	}
	if err := a.Put("t00004", "ws1", "completed", []byte("rec-t00004"), []byte("m1")); err != nil {
		t.Fatal(err)
	}
	if err := a.PutProfile("d1", []byte(`{"mode":"supervised"}`)); err != nil {
		t.Fatal(err)
	}
	check := func(a *Archive) {
		t.Helper()
		if a.Len() != n {
			t.Fatalf("Len %d, want %d", a.Len(), n)
		}
		if rec, ok, err := a.Get("t00003"); err != nil || !ok || string(rec) != "rec-t00003 again" {
			t.Fatalf("Get: %q %v %v", rec, ok, err)
		}
		if _, ok, err := a.Get("t99999"); ok || err != nil {
			t.Fatalf("Get of no turn: %v %v", ok, err)
		}
		if ids := scan(t, a, "t00010", "", 3); strings.Join(ids, ",") != "t00011,t00012,t00013" {
			t.Fatalf("a page after t00010: %v", ids)
		}
		all := scan(t, a, "", "", 0)
		ws0 := scan(t, a, "", "ws0", 0)
		ws1 := scan(t, a, "", "ws1", 0)
		if len(all) != n || len(ws0)+len(ws1) != n || scan(t, a, "", "ws", 0) != nil {
			t.Fatalf("%d listed, %d and %d by workspace", len(all), len(ws0), len(ws1))
		}
		for i := 1; i < len(all); i++ {
			if all[i-1] >= all[i] {
				t.Fatalf("out of order: %s, %s", all[i-1], all[i])
			}
		}
		// By status, and by workspace and status: every turn once.
		byStatus := 0
		for _, st := range []string{"completed", "failed", "interrupted"} {
			all := scanStatus(t, a, "", "", st, 0)
			byStatus += len(all)
			if both := len(scanStatus(t, a, "", "ws0", st, 0)) + len(scanStatus(t, a, "", "ws1", st, 0)); both != len(all) {
				t.Fatalf("%s: %d turns, %d by workspace", st, len(all), both)
			}
		}
		if byStatus != n || scanStatus(t, a, "", "", "completed\x00", 0) != nil {
			t.Fatalf("%d turns by status, want %d", byStatus, n)
		}
		if ids := scanStatus(t, a, "t00002", "ws1", "completed", 1); len(ids) != 1 || ids[0] != "t00003" {
			t.Fatalf("t00003 is completed in ws1 now: %v", ids)
		}
		if ids := scan(t, a, "t00002", "ws1", 2); len(ids) != 2 || ids[0] != "t00003" {
			t.Fatalf("t00003 is in ws1 now: %v", ids)
		}
		for _, id := range ws0 {
			if id == "t00003" {
				t.Fatal("t00003 is still listed in ws0")
			}
		}
		if enc, ok, err := a.Profile("d1"); err != nil || !ok || string(enc) != `{"mode":"supervised"}` {
			t.Fatalf("profile d1: %q %v %v", enc, ok, err)
		}
		if _, ok, err := a.Profile("d2"); ok || err != nil {
			t.Fatalf("profile d2: %v %v", ok, err)
		}
	}
	check(a)
	// One batch of 4,096 and two syncs written so far.
	if gen := a.Generation(); gen != 3 || a.Mark() != nil {
		t.Fatalf("before Sync: generation %d, mark %q; want 3, none", gen, a.Mark())
	}
	if err := a.Sync(); err != nil {
		t.Fatal(err)
	}
	check(a)
	if a.Generation() != 4 || string(a.Mark()) != "m1" {
		t.Fatalf("after Sync: generation %d, mark %q; want 4, m1", a.Generation(), a.Mark())
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	a = open(t, path)
	check(a)
	if a.Epoch() != epoch || a.Generation() != 4 || string(a.Mark()) != "m1" {
		t.Fatalf("after a reopen: epoch %s, generation %d, mark %q; was %s, 4, m1", a.Epoch(), a.Generation(), a.Mark(), epoch)
	}
	if err := a.Put("x", "ws0", "completed", []byte("rec-x"), nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Reset(); err != nil {
		t.Fatal(err)
	}
	if a.Len() != 0 || a.Epoch() == epoch || a.Generation() != 0 || a.Mark() != nil || scan(t, a, "", "", 0) != nil || scan(t, a, "", "ws0", 0) != nil {
		t.Fatalf("after Reset: %d turns, epoch %s", a.Len(), a.Epoch())
	}
	epoch = a.Epoch()
	a.Close()
	a = open(t, path)
	defer a.Close()
	if a.Len() != 0 || a.Epoch() != epoch {
		t.Fatalf("reopened after Reset: %d turns, epoch %s, want 0 and %s", a.Len(), a.Epoch(), epoch)
	}
}

// TestArchiveRefusesAnotherFile: a file of another format is refused; a
// second open of one archive is refused while the first
// holds it, and succeeds once it is closed.
func TestArchiveRefusesAnotherFile(t *testing.T) {
	dir := t.TempDir()
	a := open(t, filepath.Join(dir, "a"))
	a.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keyFormat, []byte("turnstile-turn-archive/0"))
	})
	a.Close()
	if _, err := Open(filepath.Join(dir, "a")); err == nil || !strings.Contains(err.Error(), "format") {
		t.Fatalf("another format: %v", err)
	}
	b := open(t, filepath.Join(dir, "b"))
	if _, err := Open(filepath.Join(dir, "b")); err == nil {
		t.Fatal("a second open while the first holds the file")
	}
	b.Close()
	open(t, filepath.Join(dir, "b")).Close()
}

// TestArchiveSurvivesKill: a process that synced some records, wrote more
// batches and gathered more is killed; the archive opens, every synced
// record is there, and it counts what it holds.
func TestArchiveSurvivesKill(t *testing.T) {
	if path := os.Getenv("TURNARCHIVE_KILL_CHILD"); path != "" {
		a := open(t, path)
		for i := range 3000 {
			id := fmt.Sprintf("s%05d", i)
			if err := a.Put(id, "ws", "completed", []byte("rec-"+id), nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Sync(); err != nil {
			t.Fatal(err)
		}
		fmt.Println("synced")
		for i := 0; ; i++ { // until killed
			id := fmt.Sprintf("u%07d", i)
			if err := a.Put(id, "ws", "completed", []byte("rec-"+id), nil); err != nil {
				t.Fatal(err)
			}
			if len(a.dirty) == 0 {
				fmt.Println("a batch written")
			}
		}
	}
	path := filepath.Join(t.TempDir(), "archive")
	cmd := exec.Command(os.Args[0], "-test.run=^TestArchiveSurvivesKill$")
	cmd.Env = append(os.Environ(), "TURNARCHIVE_KILL_CHILD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	// Killed once it wrote three more batches, with more gathered.
	for _, want := range []string{"synced\n", "a batch written\n", "a batch written\n", "a batch written\n"} {
		if line, err := r.ReadString('\n'); err != nil || line != want {
			cmd.Process.Kill()
			t.Fatalf("child: %q %v, want %q", line, err, want)
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	a := open(t, path)
	defer a.Close()
	ids := scan(t, a, "", "ws", 0)
	if len(ids) < 3000 || ids[2999] != "s02999" || a.Len() != len(ids) {
		t.Fatalf("after the kill: %d turns listed, Len %d", len(ids), a.Len())
	}
	for i := range 3000 {
		if _, ok, err := a.Get(fmt.Sprintf("s%05d", i)); !ok || err != nil {
			t.Fatalf("synced record %d lost: %v", i, err)
		}
	}
}
