package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// utf8CwdWorkspace makes a workspace with two directories whose names
// differ only in a byte that is not UTF-8 ("\xff" and "\xfe"), links da and
// db to them, and a turn in auto_accept_edits (commands ask) started by a
// runtime credential; it returns the runtime's and an approver's clients,
// the workspace and the two directories.
func utf8CwdWorkspace(t *testing.T, turnID string) (runtime, approver *Server, root, a, b string) {
	t.Helper()
	s := StartServer(t, "")
	root = workspace(t)
	a, b = filepath.Join(root, "\xff"), filepath.Join(root, "\xfe")
	for dir, link := range map[string]string{a: "da", b: "db"} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Base(dir), filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	runtime = roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
	approver = roAs(s, roCreate(t, s, "alice", "approver", "ws"))
	runtime.startTurn(turnID, "ws", "auto_accept_edits", root)
	return runtime, approver, root, a, b
}

// TestAttack186InvalidUTF8Cwd: an approval binds the working directory of
// the command (README: "the same tool_call_id with other content (argv,
// cwd, …) is a 409 tool_call_reused"), and a grant for the turn covers
// only an identical scope. The working directory is resolved through its
// links to a path on disk, which may hold bytes that are not UTF-8; the
// scope's JSON, and the request the person saw, wrote each such byte as
// U+FFFD, so two directories whose names differ only there ("\xff" and
// "\xfe", reached by the links da and db) had one scope: the person's
// answer for da ran the command in db, under the same tool call id or from
// an allow_for_turn grant, and on the decision path (a workdir) too. Such
// a path is now refused (400 invalid_field), nothing asked or run.
//
// Controls: the same command in src (a UTF-8 name) asks, on both paths,
// and a file tool's path through da is refused as the cwd is while one in
// src is decided.
func TestAttack186InvalidUTF8Cwd(t *testing.T) {
	t.Parallel()
	runtime, _, root, a, _ := utf8CwdWorkspace(t, "u8once")
	call := func(id, cwd string) map[string]any {
		return map[string]any{"tool_call_id": id, "argv": []string{"touch", "ran-here"}, "cwd": cwd, "timeout_ms": 20000}
	}
	if st, first := runtime.exec("u8once", "", call("c0", "src")); st != http.StatusAccepted || first.Request == nil {
		t.Fatalf("control: the command in src: %d %+v, want it to ask", st, first)
	}
	for _, cwd := range []string{"da", "db"} {
		st, raw := runtime.Request("POST", "/v1/turns/u8once/exec", call("c-"+cwd, cwd))
		wantError(t, st, raw, http.StatusBadRequest, "invalid_field")
	}
	if exists(filepath.Join(a, "ran-here")) {
		t.Fatalf("the command ran in %q", a)
	}

	args := func(workdir string) map[string]any {
		return map[string]any{"cmd": []string{"git", "clean", "-fdx"}, "workdir": workdir}
	}
	if other := runtime.decide("u8once", "d1", "exec_command", args("src")); other.Decision != "ask" {
		t.Fatalf("control: workdir src: %+v, want ask", other)
	}
	st, raw := runtime.Request("POST", "/v1/turns/u8once/decisions", map[string]any{"tool_call_id": "d2", "tool_name": "exec_command", "arguments": args("da")})
	wantError(t, st, raw, http.StatusBadRequest, "invalid_field")

	for _, d := range []string{a, filepath.Join(root, "src")} {
		if err := os.WriteFile(filepath.Join(d, "x"), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r := runtime.decide("u8once", "f1", "read_file", map[string]any{"path": root + "/src/x"}); r.Decision == "" {
		t.Fatalf("control: a read of src/x: %+v", r)
	}
	st, raw = runtime.Request("POST", "/v1/turns/u8once/decisions", map[string]any{"tool_call_id": "f2", "tool_name": "read_file", "arguments": map[string]any{"path": root + "/da/x"}})
	wantError(t, st, raw, http.StatusBadRequest, "invalid_field")
}
