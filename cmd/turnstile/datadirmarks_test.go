package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"turnstile/sandbox"
)

// TestDataDirMarksNameTheStore: `turnstile sandbox` denies its command a
// default data directory that holds a server's data, told by
// sandbox.DataDirMarks: the names serve writes there (its token, its
// embedded store's file or directory) must be among them.
func TestDataDirMarksNameTheStore(t *testing.T) {
	for _, n := range []string{"token", logDirName, boltFileName} {
		if !slices.Contains(sandbox.DataDirMarks, n) {
			t.Errorf("%q, which serve writes in its data directory, is not in sandbox.DataDirMarks %v", n, sandbox.DataDirMarks)
		}
	}
}

// TestServerFileNameNamesTheReadModels: a data directory holds a server's
// data (sandbox.HoldsServerData) once it holds a file serve writes there:
// every name its read models' checkpoint and archive take, for each kind
// of store (the hundred-and-thirty-seventh review: a server with
// --token-file and --store log:DIR leaves only those), the checkpoint's
// temporary file (writeTemp) and an archive moved aside (openArchive)
// included, is sandbox.ServerFileName.
func TestServerFileNameNamesTheReadModels(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, store := range []string{"", "log:/srv/events", "bolt:/srv/events.db", "postgres://db/turnstile"} {
		data := t.TempDir()
		cp := checkpointPath(serveFlags{data: data, store: store})
		if filepath.Dir(cp) != data {
			t.Fatalf("store %q: the checkpoint %s is not in the data directory", store, cp)
		}
		tmp, err := writeTemp(cp, []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cp, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		// Not an archive: moved aside, a new one made.
		if err := os.WriteFile(archivePath(cp), []byte("not an archive"), 0o600); err != nil {
			t.Fatal(err)
		}
		a, err := openArchive(archivePath(cp), log)
		if err != nil {
			t.Fatal(err)
		}
		a.Close()
		ents, err := os.ReadDir(data)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
			if !sandbox.ServerFileName(e.Name()) {
				t.Errorf("store %q: %s, which serve writes in its data directory, is not a sandbox.ServerFileName", store, e.Name())
			}
		}
		if len(names) != 4 || !slices.Contains(names, filepath.Base(tmp)) || !slices.Contains(names, filepath.Base(archivePath(cp))+".damaged") {
			t.Errorf("store %q: the data directory holds %v, want the checkpoint, its temporary file, the archive and the damaged one", store, names)
		}
		if !sandbox.HoldsServerData(data) {
			t.Errorf("store %q: a data directory holding %v does not hold a server's data", store, names)
		}
	}
	if old := legacyCheckpointPath(serveFlags{store: "bolt:/srv/events.db"}); !sandbox.ServerFileName(filepath.Base(old)) {
		t.Errorf("an earlier version's checkpoint %s is not a sandbox.ServerFileName", old)
	}
}
