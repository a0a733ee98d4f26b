package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestServerFileName: the names a server writes in its data directory
// (its marks, its read models' checkpoint and archive, plain or named
// after a store, with the checkpoint's temporary file and an archive moved
// aside) are its; a workspace's names are not.
func TestServerFileName(t *testing.T) {
	for _, n := range []string{
		"token", "events", "events.db", "events.migrating",
		"readmodels.checkpoint", "readmodels.checkpoint.tmp", "readmodels.archive", "readmodels.archive.damaged",
		"b23029c1fdd5.readmodels.checkpoint", "b23029c1fdd5.readmodels.checkpoint.tmp",
		"b23029c1fdd5.readmodels.archive", "b23029c1fdd5.readmodels.archive.damaged",
		"events.db.readmodels.checkpoint",
	} {
		if !ServerFileName(n) {
			t.Errorf("ServerFileName(%q) = false, want true", n)
		}
	}
	for _, n := range []string{
		"", "repo", "token.txt", "xreadmodels.checkpoint", "readmodels.checkpoint.bak",
		"readmodels.checkpoint.tmp.tmp", "workspaces", ".readmodels",
	} {
		if ServerFileName(n) {
			t.Errorf("ServerFileName(%q) = true, want false", n)
		}
	}
}

// TestHoldsServerData: a directory holds a server's data once it holds any
// file a server writes there, a hashed checkpoint alone included (the
// hundred-and-thirty-seventh review); a directory of workspaces does not;
// one of more entries than are looked at counts as holding some.
func TestHoldsServerData(t *testing.T) {
	for _, n := range []string{"token", "events", "b23029c1fdd5.readmodels.checkpoint", "b23029c1fdd5.readmodels.archive.damaged", "readmodels.checkpoint.tmp"} {
		d := t.TempDir()
		mustWrite(t, filepath.Join(d, "ws-a", "README"))
		mustWrite(t, filepath.Join(d, n))
		if !HoldsServerData(d) {
			t.Errorf("a directory holding %s: HoldsServerData = false", n)
		}
		if got := DataDirSecrets(d); !slices.Contains(got, d) {
			t.Errorf("a directory holding %s is not denied whole: %v", n, got)
		}
	}
	d := t.TempDir()
	mustWrite(t, filepath.Join(d, "ws-a", "readmodels.checkpoint")) // below: a workspace's
	if HoldsServerData(d) {
		t.Error("a directory of workspaces: HoldsServerData = true")
	}
	got := DataDirSecrets(d)
	if slices.Contains(got, d) {
		t.Errorf("a directory of workspaces is denied whole: %v", got)
	}
	for _, n := range []string{"token", "readmodels.checkpoint", "readmodels.checkpoint.tmp", "readmodels.archive"} {
		if !slices.Contains(got, filepath.Join(d, n)) {
			t.Errorf("a directory of workspaces: %s is not watched: %v", n, got)
		}
	}
	if missing := filepath.Join(d, "missing"); !slices.Equal(DataDirSecrets(missing), []string{missing}) {
		t.Errorf("a missing directory: %v, want it whole", DataDirSecrets(missing))
	}
	for i := range maxDataDirLinkScan - 1 { // with ws-a: as many as are looked at
		mustWrite(t, filepath.Join(d, fmt.Sprintf("f%05d", i)))
	}
	if HoldsServerData(d) {
		t.Errorf("%d entries: HoldsServerData = true", maxDataDirLinkScan)
	}
	mustWrite(t, filepath.Join(d, "one-more"))
	if !HoldsServerData(d) {
		t.Errorf("%d entries, more than are looked at: HoldsServerData = false", maxDataDirLinkScan+1)
	}
}

func mustWrite(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkDataDirSecrets: what a server pays at each spawn for the
// secrets of the user's default data directory when it is not its own
// (serve's runner): missing, without a server's data (a few workspaces),
// and holding one's (a log store, a token, checkpoints and archives).
func BenchmarkDataDirSecrets(b *testing.B) {
	tmp := b.TempDir()
	empty := filepath.Join(tmp, "empty")
	server := filepath.Join(tmp, "server")
	write := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 8 {
		write(filepath.Join(empty, fmt.Sprintf("ws-%d", i), "README"))
	}
	for _, n := range []string{"token", "readmodels.checkpoint", "readmodels.archive", "b23029c1fdd5.readmodels.checkpoint",
		"b23029c1fdd5.readmodels.archive", "events/FORMAT", "events/INDEX", "events/LOCK", "events/00000000000000000000.seg"} {
		write(filepath.Join(server, n))
	}
	for _, c := range []struct{ name, dir string }{{"missing", filepath.Join(tmp, "missing")}, {"no-server-data", empty}, {"server-data", server}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				DataDirSecrets(c.dir)
			}
		})
	}
}
