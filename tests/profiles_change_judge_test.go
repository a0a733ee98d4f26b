package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// judgeProfiles: "ask" asks before every write in the workspace; "notxt"
// is "ask" with **/*.txt denied by its file rules (the resource check's,
// not the policy table's).
const judgeProfiles = `
[permissions.ask]
extends = ":read-only"
[permissions.ask.filesystem.":workspace_roots"]
"." = "write"
[permissions.ask.approvals]
policy = "supervised"

[permissions.notxt]
extends = "ask"
[permissions.notxt.filesystem]
"**/*.txt" = "deny"

[permissions.nocurl]
extends = "ask"
[permissions.nocurl.process]
denied_commands = ["curl"]
`

// judgeTurn starts a server with judgeProfiles and a turn id under "ask".
func judgeTurn(t *testing.T, id string) *Server {
	t.Helper()
	file := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(file, []byte(judgeProfiles), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", file)
	if status, body := s.Do("POST", "/v1/turns", map[string]any{"turn_id": id, "workspace_id": "ws", "thread_id": "th",
		"workspace_root": workspace(t), "permission_profile": map[string]any{"profile": "ask"}}); status != http.StatusCreated {
		t.Fatalf("start: %d %s", status, body)
	}
	return s
}

// changeProfile changes the turn's profile and returns what reads an
// approval's status and resolution after the change.
func changeProfile(s *Server, turnID, profile string) func(id string) (string, string) {
	var ch struct {
		Position string `json:"position"`
	}
	s.JSON("POST", "/v1/turns/"+turnID+"/permissions", map[string]any{"permission_profile": map[string]any{"profile": profile}}, http.StatusOK, &ch)
	return func(id string) (string, string) {
		var a struct {
			Status     string `json:"status"`
			Resolution string `json:"resolution"`
		}
		s.JSON("GET", "/v1/approvals/"+id+"?after="+ch.Position, nil, http.StatusOK, &a)
		return a.Status, a.Resolution
	}
}

// TestProfileChangeJudgesOpenRequestsFiles: a profile change cancels the
// open requests its file rules deny, judged with the resource checks on
// the request's recorded path (not the policy table alone: the
// twenty-seventh review), and leaves the others open. Control: the
// request for a file the new rules allow stays pending.
func TestProfileChangeJudgesOpenRequestsFiles(t *testing.T) {
	t.Parallel()
	s := judgeTurn(t, "j")
	patch := func(name string) map[string]any {
		return map[string]any{"patch": "*** Begin Patch\n*** Add File: " + name + "\n+x\n*** End Patch\n"}
	}
	txt := s.decide("j", "txt", "apply_patch", patch("notes.txt"))
	md := s.decide("j", "md", "apply_patch", patch("notes.md"))
	if txt.Decision != "ask" || md.Decision != "ask" {
		t.Fatalf("under ask: %+v %+v, want two asks", txt, md)
	}
	status := changeProfile(s, "j", "notxt")
	if st, res := status(txt.Request.RequestID); st != "resolved" || res != "cancelled" {
		t.Errorf("the request to write notes.txt after a change denying **/*.txt: %s %s, want resolved cancelled", st, res)
	}
	if st, _ := status(md.Request.RequestID); st != "pending" {
		t.Errorf("control: the request to write notes.md: %s, want pending", st)
	}
}

// TestProfileChangeCancelsRequestsOfDeniedCommands: a change whose process
// policy now denies a command cancels the open request to run it (the
// twenty-seventh review noted that the change judged open requests
// without their argv). Control: a request for another command stays open.
func TestProfileChangeCancelsRequestsOfDeniedCommands(t *testing.T) {
	t.Parallel()
	s := judgeTurn(t, "c")
	curl := s.decide("c", "curl", "exec_command", map[string]any{"cmd": []string{"curl", "https://example.com/"}})
	ls := s.decide("c", "ls", "exec_command", map[string]any{"cmd": []string{"ls", "-la"}})
	if curl.Decision != "ask" || ls.Decision != "ask" {
		t.Fatalf("under ask: %+v %+v, want two asks", curl, ls)
	}
	status := changeProfile(s, "c", "nocurl")
	if st, res := status(curl.Request.RequestID); st != "resolved" || res != "cancelled" {
		t.Errorf("the request to run curl after a change denying it: %s %s, want resolved cancelled", st, res)
	}
	if st, _ := status(ls.Request.RequestID); st != "pending" {
		t.Errorf("control: the request to run ls: %s, want pending", st)
	}
}
