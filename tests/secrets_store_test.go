package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreOutsideDataDirectoryDeniedToTurns: an embedded store named with
// --store bolt:PATH or log:DIR outside the data directory (and the bolt
// store's read-model checkpoint beside it) holds every workspace's events
// and the credentials' hashes. A full_access turn's decisions must deny
// reading or writing it and a full_access command must not read it, as for
// the data directory; a file beside it stays readable (control).
func TestStoreOutsideDataDirectoryDeniedToTurns(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"bolt", "log"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			root := workspace(t)
			outside := t.TempDir()
			outside, _ = filepath.EvalSymlinks(outside)
			store := filepath.Join(outside, "events.db")
			reads := []string{store}
			writes := []string{store + ".readmodels.checkpoint"}
			if kind == "log" {
				store = filepath.Join(outside, "eventlog")
				reads = []string{store, filepath.Join(store, "00000000000000000000.seg")}
				writes = []string{filepath.Join(store, "x.seg")}
			}
			beside := filepath.Join(outside, "beside.txt")
			if err := os.WriteFile(beside, []byte("beside\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s := StartServer(t, t.TempDir(), "--store", kind+":"+store)
			id := "st-" + kind
			s.startTurn(id, "ws", "full_access", root)
			for i, p := range reads {
				if d := s.decide(id, "r"+string(rune('a'+i)), "read_file", map[string]any{"path": p}); d.Decision != "deny" {
					t.Errorf("read_file %s: %s (%s), want deny", p, d.Decision, d.Reason)
				}
			}
			for i, p := range append(writes, beside+".new") {
				patch := "*** Begin Patch\n*** Add File: " + p + "\n+x\n*** End Patch\n"
				d := s.decide(id, "w"+string(rune('a'+i)), "apply_patch", map[string]any{"patch": patch})
				if want := p != beside+".new"; want != (d.Decision == "deny") {
					t.Errorf("a patch adding %s: %s (%s), denied should be %v", p, d.Decision, d.Reason, want)
				}
			}
			if d := s.decide(id, "ok", "read_file", map[string]any{"path": beside}); d.Decision != "allow" {
				t.Errorf("read_file %s: %s (%s), want allow (control)", beside, d.Decision, d.Reason)
			}
			// A full_access command: the store reads as nothing; the file
			// beside it reads.
			target := reads[len(reads)-1]
			_, d := s.exec(id, "", map[string]any{"tool_call_id": "x1", "argv": []string{"cat", target}, "cwd": root})
			if d.Result != nil && d.Result.ExitCode == 0 && d.Result.Stdout != "" {
				t.Errorf("a full_access cat of %s read %d bytes", target, len(d.Result.Stdout))
			}
			_, d = s.exec(id, "", map[string]any{"tool_call_id": "x2", "argv": []string{"cat", beside}, "cwd": root})
			if d.Result == nil || !strings.Contains(d.Result.Stdout, "beside") {
				t.Errorf("a full_access cat of %s: %+v %+v, want its content (control)", beside, d, d.Result)
			}
		})
	}
}
