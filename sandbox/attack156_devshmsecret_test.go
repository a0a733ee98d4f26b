package sandbox

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAttack156_FullAccessReadsSecretsUnderDevShm (review 156, High): a
// gateway secret kept under /dev/shm (a token file on tmpfs so that it never
// touches a disk, `serve --token-file /dev/shm/ts-token`, or a data
// directory there) is read and rewritten by a full_access command: the
// server's admin token, and with it the answer to every approval.
//
// README ("What the sandbox guarantees", the gateway's secrets,
// full_access included): "the data directory and token files are masked
// (an empty read-only tmpfs or file) at every path their filesystem is
// mounted at".
//
// Root cause: sandbox/fullaccess.go buildFullAccessView clones the host's
// /dev/shm (mountsAndDevNodes → cloneDevNodes: open_tree(OPEN_TREE_CLONE |
// AT_RECURSIVE)) before maskSecrets masks the secrets; mountDev then
// moves that clone onto the new /dev/shm. The clone was taken without the
// masks (and without the pins of the directories above them), and it is
// the mount the command sees at /dev/shm: mountinfo shows the mask on the
// host's /dev/shm mount, covered by the unmasked clone.
//
// Fix: clone /dev/shm after maskSecrets (and the pins), so the recursive
// clone carries the masks; or mask again inside the new /dev (run the
// masking pass once more after mountDev, over every mount of the secrets'
// filesystems, as maskSecrets already repeats until every location is
// covered).
//
// Controls: the same secret layout in an ordinary temp dir is masked (the
// command reads nothing); a neighbour file in the same /dev/shm directory
// that is no secret is read (the directory is visible, the command runs).
func TestAttack156_FullAccessReadsSecretsUnderDevShm(t *testing.T) {
	requireRoot(t)
	useStaticHelper(t) // a root server runs full_access only through it (a cgo test binary is refused)
	f := requireKernel(t, true)
	var sfs unix.Statfs_t
	if err := unix.Statfs("/dev/shm", &sfs); err != nil {
		missingPrerequisite(t, "no /dev/shm: %v", err)
	}
	const marker = "ADMIN-TOKEN-MARKER-156"
	base, err := os.MkdirTemp("/dev/shm", "turnstile-a156-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	data := base + "/data"
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	tokenFile := base + "/ts-token" // serve --token-file /dev/shm/…
	for _, p := range []string{tokenFile, data + "/token"} {
		if err := os.WriteFile(p, []byte(marker+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(base+"/neighbour.txt", []byte("neighbour\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := tempWorkspace(t)

	// Control: the same layout in an ordinary directory is masked.
	ctl := tempWorkspace(t)
	ctlData := ctl + "/data"
	if err := os.Mkdir(ctlData, 0o700); err != nil {
		t.Fatal(err)
	}
	ctlToken := ctl + "/ts-token"
	for _, p := range []string{ctlToken, ctlData + "/token"} {
		if err := os.WriteFile(p, []byte(marker+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	script := func(tok, d, neighbour string) string {
		return strings.Join([]string{
			"cat " + tok + " 2>/dev/null | grep -q " + marker + " && echo TOKEN-FILE-READ",
			"cat " + d + "/token 2>/dev/null | grep -q " + marker + " && echo DATA-TOKEN-READ",
			"echo planted > " + d + "/planted 2>/dev/null && echo DATA-WRITTEN",
			"printf 'agent-chosen-token-0123456789\\n' > " + tok + " 2>/dev/null && echo TOKEN-REWRITTEN",
			"[ -z '" + neighbour + "' ] || grep -q neighbour " + neighbour + " && echo NEIGHBOUR-READ",
			"true",
		}, "\n")
	}
	out, code, err := runFullAccessScript(f.Kernel, []string{ctlData, ctlToken}, ws, script(ctlToken, ctlData, ""))
	if err != nil || code != 0 {
		t.Fatalf("control run: exit %d %v\n%s", code, err, out)
	}
	for _, leak := range []string{"TOKEN-FILE-READ", "DATA-TOKEN-READ", "DATA-WRITTEN", "TOKEN-REWRITTEN"} {
		if strings.Contains(out, leak) {
			t.Fatalf("control: secrets in an ordinary directory are not masked (%s): the fixture is wrong\n%s", leak, out)
		}
	}

	out, code, err = runFullAccessScript(f.Kernel, []string{data, tokenFile}, ws, script(tokenFile, data, base+"/neighbour.txt"))
	if err != nil || code != 0 {
		t.Fatalf("run: exit %d %v\n%s", code, err, out)
	}
	t.Logf("full_access command over secrets in %s:\n%s", base, out)
	if !strings.Contains(out, "NEIGHBOUR-READ") {
		t.Fatalf("control: the command did not read a plain file in the same /dev/shm directory:\n%s", out)
	}
	for _, leak := range []string{"TOKEN-FILE-READ", "DATA-TOKEN-READ", "DATA-WRITTEN", "TOKEN-REWRITTEN"} {
		if strings.Contains(out, leak) {
			t.Errorf("a full_access command reached a gateway secret under /dev/shm: %s", leak)
		}
	}
	if b, err := os.ReadFile(tokenFile); err != nil || !strings.Contains(string(b), marker) {
		t.Errorf("the token file the next serve reads was rewritten by the command: %q (%v)", b, err)
	}
	if exists(data + "/planted") {
		t.Errorf("the command planted a file in the data directory under /dev/shm")
	}
}
