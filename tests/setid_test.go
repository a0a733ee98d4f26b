package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestRestrictedCommandMakesNoSetIDProgram: a restricted command's files
// belong on disk to its writable root's owner (root here, through the
// idmapped mount), so a set-user-ID copy of a shell left in the workspace
// would give root to any process of the host that runs it outside the
// sandbox. chmod u+s or g+s, and a file created with those bits, are
// refused (seccomp), while a plain chmod works. Controls: the same
// commands in a full_access turn, and the test itself, set the bits.
func TestRestrictedCommandMakesNoSetIDProgram(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	attack := "cp /bin/sh s && chmod 755 s && echo plain; chmod 4755 s; chmod 2755 s; chmod u+s s; " +
		"perl -e 'sysopen(F, \"p\", 0101, 04755) or die \"sysopen: $!\"' || :; ls -ln"
	setID := func(root string) []string {
		var out []string
		for _, name := range []string{"s", "p"} {
			if st, err := os.Stat(filepath.Join(root, name)); err == nil && st.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
				out = append(out, name+" "+st.Mode().String())
			}
		}
		return out
	}
	ws := workspace(t)
	s.startTurn("setid", "ws", "auto_accept_edits", ws)
	run := s.execApproved("setid", "attack", map[string]any{"argv": []string{"sh", "-c", attack}, "cwd": ws})
	if !run.Ran || run.Result == nil || run.Result.Stdout == "" || run.Result.Stdout[:6] != "plain\n" {
		t.Fatalf("control: cp and a plain chmod in the workspace: %+v %+v", run, run.Result)
	}
	if got := setID(ws); len(got) != 0 {
		t.Fatalf("a restricted command left set-ID programs owned by the workspace's owner: %v\n%s", got, run.Result.Stdout)
	}
	fa := workspace(t)
	s.startTurn("setid-fa", "ws", "full_access", fa)
	status, d := s.exec("setid-fa", "", map[string]any{"tool_call_id": "fa", "argv": []string{"sh", "-c", attack}, "cwd": fa})
	if status != http.StatusOK || !d.Ran || len(setID(fa)) == 0 {
		t.Fatalf("control: the same commands in full_access: %d %+v %+v", status, d, d.Result)
	}
	if err := os.Chmod(filepath.Join(ws, "s"), 0o755|os.ModeSetuid); err != nil || len(setID(ws)) == 0 {
		t.Fatalf("control: chmod u+s from the test: %v", err)
	}
}
