package tests

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCLIReplay compares a turn's replay at the ask's version and after the
// response.
func TestCLIReplay(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("rep", "ws", "supervised", root)
	ask := s.decide("rep", "c1", "exec_command", map[string]any{"cmd": "make"})
	s.respond(ask.Request.RequestID, "allow_for_turn")
	done := s.turn("rep").Turn.Version
	if ask.Version != 3 || done != 4 {
		t.Fatalf("versions: ask %d, resolved %d", ask.Version, done)
	}
	type replay struct {
		TurnID           string `json:"turn_id"`
		Version          int64  `json:"version"`
		Status           string `json:"status"`
		Grants           int    `json:"grants"`
		PendingApprovals []struct {
			RequestID  string `json:"request_id"`
			ToolCallID string `json:"tool_call_id"`
			ToolName   string `json:"tool_name"`
			Action     string `json:"action"`
		} `json:"pending_approvals"`
		SecuritySnapshot struct {
			PermissionProfile struct{ Mode string } `json:"permission_profile"`
		} `json:"security_snapshot"`
	}
	at := func(v string) replay {
		out, errOut, code := s.CLI("replay", "rep", "--at", v, "--json")
		if code != 0 {
			t.Fatalf("replay --at %s: exit %d %s", v, code, errOut)
		}
		var r replay
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("replay --at %s: %v\n%s", v, err, out)
		}
		return r
	}
	asked, resolved, started := at("3"), at("4"), at("2")
	if asked.Version != 3 || asked.Status != "awaiting_approval" || len(asked.PendingApprovals) != 1 || asked.Grants != 0 ||
		asked.PendingApprovals[0].RequestID != ask.Request.RequestID || asked.PendingApprovals[0].ToolCallID != "c1" ||
		asked.PendingApprovals[0].Action != "shell_command" || asked.SecuritySnapshot.PermissionProfile.Mode != "supervised" {
		t.Fatalf("replay at the ask: %+v", asked)
	}
	if resolved.Version != 4 || resolved.Status != "in_progress" || len(resolved.PendingApprovals) != 0 || resolved.Grants != 1 {
		t.Fatalf("replay after the response: %+v", resolved)
	}
	if started.Version != 2 || len(started.PendingApprovals) != 0 || started.Status != "in_progress" {
		t.Fatalf("replay at the start: %+v", started)
	}
	out, _, code := s.CLI("replay", "rep", "--at", "3")
	if code != 0 || !strings.Contains(out, "at version 3: awaiting_approval") || !strings.Contains(out, "pending approvals: 1") || !strings.Contains(out, ask.Request.RequestID) {
		t.Fatalf("replay text at 3: %d\n%s", code, out)
	}
	out, _, code = s.CLI("replay", "rep")
	if code != 0 || !strings.Contains(out, "at version 4: in_progress") || !strings.Contains(out, "pending approvals: 0") {
		t.Fatalf("replay text at the latest: %d\n%s", code, out)
	}
	if _, errOut, code := s.CLI("replay", "rep", "--at", "99"); code == 0 || !strings.Contains(errOut, "no version 99") {
		t.Fatalf("replay past the end: %d %s", code, errOut)
	}
	if _, _, code := s.CLI("replay", "no-such-turn"); code == 0 {
		t.Fatal("replay of an unknown turn exits 0")
	}
}

// tamper flips the first letter of every copy of marker in the store's
// files (the marker is inside one event's JSON data: same length, still
// JSON), as someone with write access to the data directory would: in the
// log store (DATA/events) the checksums of the frames it changes are
// recomputed, since a checksum is no seal against a deliberate edit; a
// bbolt file (DATA/events.db) has none over its values.
func tamper(t *testing.T, dataDir, marker string) {
	t.Helper()
	files := storeFiles(t, dataDir)
	n := 0
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c := bytes.Count(b, []byte(marker))
		if c == 0 {
			continue
		}
		n += c
		flipped := []byte(marker)
		flipped[0] ^= 0x20 // change the letter's case
		b = bytes.ReplaceAll(b, []byte(marker), flipped)
		if strings.HasSuffix(path, ".seg") {
			resealFrames(t, b)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		t.Fatalf("%q is not in %v", marker, files)
	}
}

// storeFiles lists the embedded store's files in dataDir: the bbolt file
// and the log store's segments, whichever exist.
func storeFiles(t *testing.T, dataDir string) []string {
	t.Helper()
	var files []string
	if _, err := os.Stat(filepath.Join(dataDir, "events.db")); err == nil {
		files = append(files, filepath.Join(dataDir, "events.db"))
	}
	segs, err := filepath.Glob(filepath.Join(dataDir, "events", "*.seg"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, segs...)
	if len(files) == 0 {
		t.Fatalf("no store files in %s", dataDir)
	}
	return files
}

// storeBytes returns the contents of every store file in dataDir.
func storeBytes(t *testing.T, dataDir string) []byte {
	t.Helper()
	var all []byte
	for _, path := range storeFiles(t, dataDir) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// resealFrames recomputes the CRC-32C checksums of every record and frame
// of a log store segment (the layout of adapters/logstore/record.go: a
// frame is magic "TLG1", body length, first position, count, CRC over
// bytes 4..20 and the body; the body is per record its length, its CRC and
// the record).
func resealFrames(t *testing.T, seg []byte) {
	t.Helper()
	table := crc32.MakeTable(crc32.Castagnoli)
	for off := 0; off < len(seg); {
		if len(seg)-off < 24 || string(seg[off:off+4]) != "TLG1" {
			t.Fatalf("segment: no frame at offset %d", off)
		}
		end := off + 24 + int(binary.BigEndian.Uint32(seg[off+4:]))
		for r := off + 24; r < end; {
			n := int(binary.BigEndian.Uint32(seg[r:]))
			binary.BigEndian.PutUint32(seg[r+4:], crc32.Checksum(seg[r+8:r+8+n], table))
			r += 8 + n
		}
		crc := crc32.Update(crc32.Update(0, table, seg[off+4:off+20]), table, seg[off+24:end])
		binary.BigEndian.PutUint32(seg[off+20:], crc)
		off = end
	}
}

var tamperedLine = regexp.MustCompile(`TAMPERED: turn (\S+), first bad event at version (\d+)`)

// TestCLIAuditVerify verifies a clean store, then one whose event data was
// changed on disk while the server was stopped.
func TestCLIAuditVerify(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("clean", "ws-clean", "auto_accept_edits", root)
	a := s.decide("clean", "c1", "web_fetch", map[string]any{"url": "https://example.com/"})
	s.respond(a.Request.RequestID, "allow_once")
	s.startTurn("victim", "tamperedworkspace", "full_access", root)
	s.decide("victim", "c1", "task_list", nil)
	s.decide("victim", "c2", "read_file", map[string]any{"path": "a.txt"})

	out, errOut, code := s.CLI("audit", "verify", "--all", "--quiet")
	if code != 0 || !strings.Contains(out, "ok: 2 turns, 10 events") {
		t.Fatalf("verify a clean store: exit %d\n%s%s", code, out, errOut)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tamper(t, s.Data, "tamperedworkspace") // in turn.started of victim (version 0)
	s.start()

	out, errOut, code = s.CLI("audit", "verify", "--all", "--quiet")
	m := tamperedLine.FindStringSubmatch(out)
	if code == 0 || m == nil || m[1] != "victim" {
		t.Fatalf("verify a tampered store: exit %d\n%s%s", code, out, errOut)
	}
	// The chain breaks at the event after the changed one.
	if m[2] != "0" && m[2] != "1" {
		t.Fatalf("the tampered event is version 0, the report names version %s:\n%s", m[2], out)
	}
	if _, _, code := s.CLI("audit", "verify", "victim"); code == 0 {
		t.Fatal("verify victim exits 0")
	}
	if out, _, code := s.CLI("audit", "verify", "clean"); code != 0 || !strings.Contains(out, "ok: 1 turns") {
		t.Fatalf("verify the intact turn: %d %s", code, out)
	}
}

// TestCLIAuditVerifyNamesTamperedEvent checks that verify names the event
// whose data was changed, not the next one.
func TestCLIAuditVerifyNamesTamperedEvent(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("victim", "tamperedworkspace", "full_access", root)
	s.decide("victim", "c1", "task_list", nil)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tamper(t, s.Data, "tamperedworkspace")
	s.start()
	out, _, code := s.CLI("audit", "verify", "victim")
	m := tamperedLine.FindStringSubmatch(out)
	if code == 0 || m == nil {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}
	if m[2] != "0" {
		t.Fatal("regression: cmd/turnstile/audit.go named ChainError.Revision (the first event whose prev_hash does not match) as the first bad event; the event whose data changed is the one before it (version 0 here), got: " + strings.TrimSpace(out))
	}
}

// TestCLIApprovals lists and resolves approvals from the command line.
func TestCLIApprovals(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	s.startTurn("cli", "ws", "supervised", root)
	ask := s.decide("cli", "c1", "exec_command", map[string]any{"cmd": "make deploy"})
	id := ask.Request.RequestID

	out, _, code := s.CLI("approvals", "list")
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "pending") || !strings.Contains(out, "turn cli") || !strings.Contains(out, "Run make deploy") {
		t.Fatalf("approvals list: %d\n%s", code, out)
	}
	out, _, code = s.CLI("approvals", "list", "--json", "--turn", "cli")
	var list []approvalView
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0].Request.RequestID != id {
		t.Fatalf("approvals list --json: %d\n%s", code, out)
	}
	if out, _, code = s.CLI("approvals", "list", "--status", "resolved"); code != 0 || !strings.Contains(out, "no approval requests") {
		t.Fatalf("approvals list --status resolved: %d\n%s", code, out)
	}
	for _, bad := range []string{"maybe", "expired"} {
		if _, errOut, code := s.CLI("approvals", "respond", id, bad); code == 0 || !strings.Contains(errOut, "400") {
			t.Fatalf("approvals respond %s: %d %s", bad, code, errOut)
		}
	}
	if out, errOut, code := s.CLI("approvals", "respond", id, "allow_for_turn"); code != 0 || !strings.HasPrefix(out, id+": allow_for_turn\n") {
		t.Fatalf("approvals respond: %d %s%s", code, out, errOut)
	}
	if out, _, code := s.CLI("approvals", "respond", id, "allow_for_turn"); code != 0 || !strings.Contains(out, "nothing changed") {
		t.Fatalf("approvals respond again: %d %s", code, out)
	}
	if _, errOut, code := s.CLI("approvals", "respond", id, "deny"); code == 0 || !strings.Contains(errOut, "already_resolved") {
		t.Fatalf("approvals respond otherwise: %d %s", code, errOut)
	}
	if _, _, code := s.CLI("approvals", "respond", "no-such-request", "deny"); code == 0 {
		t.Fatal("respond to an unknown request exits 0")
	}
	if d := s.decide("cli", "c2", "exec_command", map[string]any{"cmd": "make deploy"}); d.Reason != "cached_approval" {
		t.Fatalf("grant from the CLI: %+v", d)
	}
	out, _, code = s.CLI("approvals", "list", "--status", "all")
	if code != 0 || !strings.Contains(out, "resolved:allow_for_turn") {
		t.Fatalf("approvals list --status all: %d\n%s", code, out)
	}
}

// TestCLIFSMAndHelp checks the state diagram and that --help on each
// command exits 0.
func TestCLIFSMAndHelp(t *testing.T) {
	t.Parallel()
	out, _, code := runCLI(t, "fsm")
	if code != 0 || !strings.Contains(out, "stateDiagram") {
		t.Fatalf("fsm: %d\n%s", code, out)
	}
	for _, st := range []string{"in_progress", "awaiting_approval", "completed", "interrupted", "failed"} {
		if !strings.Contains(out, st) {
			t.Errorf("fsm lacks %s:\n%s", st, out)
		}
	}
	if out, _, code := runCLI(t, "--help"); code != 0 || !strings.Contains(out, "serve") || !strings.Contains(out, "sandbox") {
		t.Fatalf("--help: %d %s", code, out)
	}
	if _, _, code := runCLI(t, "no-such-command"); code == 0 {
		t.Fatal("an unknown command exits 0")
	}
	for _, args := range [][]string{
		{"serve", "--help"}, {"replay", "--help"}, {"audit", "--help"}, {"audit", "verify", "--help"},
		{"approvals", "--help"}, {"approvals", "list", "--help"}, {"approvals", "respond", "--help"},
		{"exec", "--help"}, {"doctor", "--help"}, {"fsm", "--help"}, {"bench", "--help"}, {"migrate", "--help"}, {"bench-fill", "--help"},
	} {
		out, errOut, code := runCLI(t, args...)
		if code != 0 || !strings.Contains(out+errOut, "usage") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
}

// TestCLISandboxHelp checks `turnstile sandbox --help`.
func TestCLISandboxHelp(t *testing.T) {
	t.Parallel()
	out, errOut, code := runCLI(t, "sandbox", "--help")
	if !strings.Contains(out+errOut, "usage: turnstile sandbox") {
		t.Fatalf("sandbox --help prints no usage:\n%s%s", out, errOut)
	}
	if code != 0 {
		t.Fatalf("regression: sandbox/cli.go returned 2 for every flag parse error, so `turnstile sandbox --help` exits %d (every other command exits 0 on --help)", code)
	}
}

// TestCLIAuditVerifyDetectsTamperedLastEvent changes the data of a turn's
// last event. Nothing after it in the stream pins its hash, so verify
// catches it against the heads an earlier verify recorded (--heads), and
// without them says that it cannot.
func TestCLIAuditVerifyDetectsTamperedLastEvent(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "")
	root := workspace(t)
	if err := os.WriteFile(filepath.Join(root, "tailmarkerfile.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.startTurn("tail", "ws", "full_access", root)
	s.decide("tail", "c1", "read_file", map[string]any{"path": "tailmarkerfile.txt"})
	heads := filepath.Join(t.TempDir(), "heads.json")
	if out, errOut, code := s.CLI("audit", "verify", "--heads", heads, "tail"); code != 0 {
		t.Fatalf("first verify: %d %s%s", code, out, errOut)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	tamper(t, s.Data, "tailmarkerfile") // in the last event (version 3)
	s.start()
	evs, _ := s.events("tail")
	if !bytes.Contains(evs[len(evs)-1].Data, []byte("Tailmarkerfile")) {
		t.Fatalf("the last event was not changed: %s", evs[len(evs)-1].Data)
	}
	out, _, code := s.CLI("audit", "verify", "tail")
	if code != 0 || !strings.Contains(out, "--heads") {
		t.Fatalf("without recorded heads verify cannot see it, and must say so: %d %s", code, out)
	}
	out, _, code = s.CLI("audit", "verify", "--heads", heads, "tail")
	m := tamperedLine.FindStringSubmatch(out)
	if code == 0 || m == nil || m[1] != "tail" || m[2] != "3" {
		t.Fatalf("verify against the recorded heads: exit %d\n%s", code, out)
	}
}
