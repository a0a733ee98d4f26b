package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestAttack76HeadsSaveWritesThroughPlantedTmpLink: `audit verify --heads
// FILE` saves the recorded heads by os.WriteFile(FILE+".tmp") and a rename
// (audit.go heads.save): the same pattern the seventy-fifth review found in
// hook install. The README's example is a relative `--heads
// audit-heads.json`; an auditor (another user than Claude Code's, as the
// README asks) who runs it in a directory the agent can write — the
// project's checkout, a shared work directory — finds
//
//	audit-heads.json.tmp -> /path/of/a/file/of/the/auditor
//
// planted there: O_CREATE|O_TRUNC follows the link and the auditor's file
// (its auditor token file, ~/.bashrc) is truncated and replaced by the heads
// JSON; the rename then moves the link, not the file.
//
// Severity: low (the README also says to keep the heads file where the
// store's host cannot write, and a heads file the agent can write is already
// worth nothing; the harm is to a file of the auditor's outside it).
//
// Fix: create the temporary file fresh, O_CREATE|O_EXCL under a random name
// (os.CreateTemp in the heads file's directory), never through a name
// someone else may have planted, and refuse a heads file that is a link or
// in a directory another user may write. Control: the same save without the
// planted link writes the heads, which load back.
func TestAttack76HeadsSaveWritesThroughPlantedTmpLink(t *testing.T) {
	h := heads{"turn-1": {Version: 3, Hash: "abc"}}

	ctl := filepath.Join(t.TempDir(), "audit-heads.json")
	if code := verified(h, ctl, 1, 4, io.Discard, io.Discard); code != 0 {
		t.Fatalf("control: verified exit %d", code)
	}
	if got, err := loadHeads(ctl); err != nil || got["turn-1"] != h["turn-1"] {
		t.Fatalf("control: heads after save: %v %v", got, err)
	}

	private := t.TempDir()
	victim := filepath.Join(private, "auditor.token")
	const text = "tsk_0123456789abcdef_auditor-secret\n"
	if err := os.WriteFile(victim, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	shared := t.TempDir() // the agent's directory, where the auditor runs
	path := filepath.Join(shared, "audit-heads.json")
	if err := os.Symlink(victim, path+".tmp"); err != nil {
		t.Fatal(err)
	}
	code := verified(h, path, 1, 4, io.Discard, io.Discard)
	if got, _ := os.ReadFile(victim); string(got) != text {
		t.Errorf("audit verify --heads (exit %d) wrote through the planted %s.tmp into the auditor's %s, which now holds:\n%s", code, path, victim, got)
	}
}
