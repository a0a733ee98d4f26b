package tests

import (
	"encoding/binary"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// posixACL is the system.posix_acl_access value that grants uid the
// permissions perm (besides the owner's ownerPerm), with a mask that lets
// them through.
func posixACL(ownerPerm, uid, perm uint16) []byte {
	const undefined = 0xffffffff
	b := binary.LittleEndian.AppendUint32(nil, 2) // version
	entry := func(tag, perm uint16, id uint32) {
		b = binary.LittleEndian.AppendUint16(b, tag)
		b = binary.LittleEndian.AppendUint16(b, perm)
		b = binary.LittleEndian.AppendUint32(b, id)
	}
	entry(0x01, ownerPerm, undefined) // ACL_USER_OBJ
	entry(0x02, perm, uint32(uid))    // ACL_USER
	entry(0x04, 0, undefined)         // ACL_GROUP_OBJ
	entry(0x10, perm, undefined)      // ACL_MASK
	entry(0x20, 0, undefined)         // ACL_OTHER
	return b
}

// TestAttack13TrustedFileWritableThroughAnACL: serve refuses a file it
// trusts that another user owns, or that group or others may write, or in
// a directory that is so; it read the mode bits alone. A POSIX ACL entry
// granting the Claude Code user write on root's token file (or on the
// directory that holds it) shows in the mode as the group's bits, a mask
// that with group root passed the check: the agent, whose Bash runs as
// that user, wrote its own admin token for the next start. The control:
// the same file and directory without the ACL entry start the server, and
// the other user cannot write the file.
func TestAttack13TrustedFileWritableThroughAnACL(t *testing.T) {
	env, top, writeAs, serve := ownerRig(t, ">>")
	dir := filepath.Join(top, "etc")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tok := filepath.Join(dir, "admin.token")
	if err := os.WriteFile(tok, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	// Control: root's file in root's directory, no ACL.
	p := startWithEnv(t, env, "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--token-file", tok)
	if got := ready(t, p.url, token); got != http.StatusOK {
		t.Fatalf("control: root's token file: %d", got)
	}
	if writeAs(agentUID, tok) {
		t.Fatal("control: the other user wrote root's token file")
	}

	// The Claude Code configuration's ACL grants the other user write:
	// its agent chooses the modes of the next start.
	cc := filepath.Join(dir, "claude-code.json")
	if err := os.WriteFile(cc, []byte(`{"projects": [{"root": "/srv/app", "workspace_id": "app", "mode": "supervised"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, started := serve("--token-file", tok, "--claude-code-config", cc); !started {
		t.Fatalf("control: root's configuration: did not start\n%s", out)
	}
	if writeAs(agentUID, cc) {
		t.Fatal("control: the other user wrote root's configuration")
	}
	if err := syscall.Setxattr(cc, "system.posix_acl_access", posixACL(6, agentUID, 6), 0); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: no POSIX ACLs here: %v", err)
		}
		t.Skipf("no POSIX ACLs here: %v", err)
	}
	if !writeAs(agentUID, cc) {
		t.Fatal("the ACL entry does not let the other user write")
	}
	if err := os.WriteFile(cc, []byte(`{"projects": [{"root": "/srv/app", "workspace_id": "app", "mode": "supervised"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, started := serve("--token-file", tok, "--claude-code-config", cc); started || !strings.Contains(out, "ACL entry lets uid 65534") {
		t.Errorf("serve with a Claude Code configuration whose ACL lets uid %d write it: started %v\n%s", agentUID, started, out)
	}
	// The directory's ACL grants the other user write: it renames another
	// file over the token.
	if err := syscall.Setxattr(dir, "system.posix_acl_access", posixACL(7, agentUID, 7), 0); err != nil {
		t.Fatal(err)
	}
	if out, started := serve("--token-file", tok); started || !strings.Contains(out, "ACL entry lets uid 65534") {
		t.Errorf("serve with a token file in a directory whose ACL lets uid %d write it: started %v\n%s", agentUID, started, out)
	}
}
