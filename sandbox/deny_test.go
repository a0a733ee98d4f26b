package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// denyChild resolves a child snapshot of an auto_accept_edits parent over
// ws under a cap with ws write, ws/blocked deny, ws/blocked/allowed write
// (and the system roots a shell needs): the three-level case of issue 9
// item 8, through the real cap intersection.
func denyChild(t *testing.T, ws string, parentMode domain.Mode) *domain.TurnExecutionSecuritySnapshot {
	t.Helper()
	parent := snapshotFor(t, parentMode, ws, machine().Kernel)
	roots := []domain.CapRoot{
		{Path: ws, Access: domain.AccessWrite}, {Path: ws + "/blocked", Access: domain.AccessDeny},
		{Path: ws + "/blocked/allowed", Access: domain.AccessWrite}, {Path: ws + "/secret.env", Access: domain.AccessDeny},
	}
	for _, p := range domain.SystemReadRoots {
		roots = append(roots, domain.CapRoot{Path: p, Access: domain.AccessRead})
	}
	for _, p := range domain.DeviceFiles {
		roots = append(roots, domain.CapRoot{Path: p, Access: domain.AccessWrite})
	}
	child, err := domain.ResolveChildSnapshot(domain.ChildInputs{
		Requested: &domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, Parent: parent, ParentTurnID: "parent",
		Cap: &domain.TaskCap{FilesystemRoots: roots},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &child
}

// TestDenySubtreeInsideWritableRoot: under ws write, ws/blocked deny and
// ws/blocked/allowed write, the command can neither read, list, write,
// create, remove nor move anything in blocked (nor the denied file
// secret.env), while blocked/allowed and the rest of ws stay usable; with
// the namespace mask and with the Landlock-only fallback, under a
// full_access and an auto_accept_edits parent.
func TestDenySubtreeInsideWritableRoot(t *testing.T) {
	for _, parentMode := range []domain.Mode{domain.ModeFullAccess, domain.ModeAutoAcceptEdits} {
		t.Run(string(parentMode), func(t *testing.T) {
			sandboxModes(t, func(t *testing.T, useNS bool, shm func(*domain.TurnExecutionSecuritySnapshot, string) *Result) {
				ws := tempWorkspace(t)
				mkfiles(t, ws, map[string]string{"blocked/secret": "top secret\n", "blocked/allowed/ok": "ok\n", "secret.env": "KEY=1\n", "free.txt": "free\n"})
				s := denyChild(t, ws, parentMode)
				if !s.CanSpawn() {
					t.Fatalf("child cannot spawn: %+v", s.Enforcement)
				}
				refused(t, shm, s,
					"cat blocked/secret", "ls blocked | grep -q secret", "echo x > blocked/secret", "echo x > blocked/new", "rm blocked/secret",
					"mv blocked blocked.old", "rm -rf blocked", "cat secret.env", "echo x > secret.env", "mv secret.env s.old", "ln blocked/secret hard",
					"cat "+ws+"/blocked/allowed/../secret",
				)
				if readFile(t, ws+"/blocked/secret") != "top secret\n" || readFile(t, ws+"/secret.env") != "KEY=1\n" || exists(ws+"/blocked/new") ||
					exists(ws+"/blocked.old") || exists(ws+"/s.old") || exists(ws+"/hard") {
					t.Fatal("the denied subtree changed")
				}
				allowed(t, shm, s, "cat blocked/allowed/ok && echo y > blocked/allowed/new && echo z > free.txt && cat free.txt")
				if readFile(t, ws+"/blocked/allowed/new") != "y\n" || readFile(t, ws+"/free.txt") != "z\n" {
					t.Fatal("the reopened subtree or the root was not writable")
				}
				if useNS {
					allowed(t, shm, s, "echo n > new.txt && mv new.txt new2.txt")
				}
			})
		})
	}
}

// TestDenySensitivePaths: a sensitive entry (a credential store inside the
// workspace, a file under a read-only root) is neither readable nor
// writable; a more specific grant below it does not reopen it.
func TestDenySensitivePaths(t *testing.T) {
	sandboxModes(t, func(t *testing.T, useNS bool, shm func(*domain.TurnExecutionSecuritySnapshot, string) *Result) {
		base := tempWorkspace(t)
		ws, ro := base+"/ws", base+"/ro"
		mkfiles(t, base, map[string]string{"ws/.creds/token": "t0ken\n", "ws/.creds/sub/x": "x\n", "ro/key.pem": "KEY\n", "ro/pub.txt": "pub\n", "ws/a.txt": "a\n"})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel, ro)
		for _, p := range []string{ws + "/.creds", ro + "/key.pem"} {
			s.Sandbox.Filesystem.Entries = append(s.Sandbox.Filesystem.Entries, domain.FilesystemEntry{
				Kind: domain.PathSensitive, Path: p, ResolvedPath: p, Access: domain.AccessDeny, Provenance: domain.ProvenanceSystem})
		}
		s.Sandbox.Filesystem.Entries = append(s.Sandbox.Filesystem.Entries, domain.FilesystemEntry{
			Kind: domain.PathExplicit, Path: ws + "/.creds/sub", ResolvedPath: ws + "/.creds/sub", Access: domain.AccessWrite, Provenance: domain.ProvenanceComposer})
		refused(t, shm, s, "cat .creds/token", "echo x > .creds/token", "cat .creds/sub/x", "echo y > .creds/sub/x", "cat "+ro+"/key.pem",
			"mv .creds creds.old")
		if readFile(t, ws+"/.creds/token") != "t0ken\n" || readFile(t, ws+"/.creds/sub/x") != "x\n" {
			t.Fatal("a sensitive file changed")
		}
		allowed(t, shm, s, "cat "+ro+"/pub.txt && echo b > a.txt")
	})
}

// TestDenyDecisionTime: the decision-time checker reads the same view as the
// kernel: writes to git control files (including a discovered git dir's),
// to a pinned path itself and to protected start-up files are refused;
// reads and writes in a denied subtree and a sensitive path are refused;
// the reopened subtree and ordinary files are allowed. A file tool may not
// write a git dir's other contents either (objects, refs, a lock: see
// domain.RepositoryWrite), which a command's git commit writes.
func TestDenyDecisionTime(t *testing.T) {
	requireKernel(t, false)
	ws := tempWorkspace(t)
	hostGit(t, ws, "init", "-q")
	mkfiles(t, ws, map[string]string{"blocked/secret": "s\n", "blocked/allowed/ok": "ok\n", "secret.env": "K\n", ".bashrc": "#\n",
		"nested/proj/": "", "gitdirs/": ""})
	hostGit(t, ws+"/nested/proj", "init", "-q", "--separate-git-dir", ws+"/gitdirs/proj", ".")
	s := denyChild(t, ws, domain.ModeAutoAcceptEdits)
	// The child snapshot has no protected entries of its own (caps keep
	// them only when the parent listed them); add the parent's.
	parent := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	for _, e := range parent.Sandbox.Filesystem.Entries {
		if e.Kind == domain.PathProtected {
			s.Sandbox.Filesystem.Entries = append(s.Sandbox.Filesystem.Entries, e)
		}
	}
	const R, W = domain.AccessRead, domain.AccessWrite
	for _, c := range []struct {
		path string
		op   domain.Access
		ok   bool
	}{
		{".git/config", W, false}, {".git/hooks/pre-commit", W, false}, {".git/info/attributes", W, false}, {".git/commondir", W, false},
		{".git", W, false}, {".bashrc", W, false}, {"gitdirs/proj/config", W, false}, {"gitdirs/proj/hooks/x", W, false},
		{"nested/proj/.git", W, false}, {"blocked/secret", R, false}, {"blocked/secret", W, false}, {"blocked/new", W, false},
		{"secret.env", R, false}, {"secret.env", W, false},
		{".git/index.lock", W, false}, {".git/objects/ab", W, false}, {"gitdirs/proj/objects/x", W, false}, {"blocked/allowed/ok", R, true},
		{"blocked/allowed/new", W, true}, {".bashrc", R, true}, {"main.go", W, true}, {".git/config", R, true},
	} {
		_, err := CheckFile(s, c.path, c.op)
		if (err == nil) != c.ok {
			t.Errorf("%s %s: err %v, want allowed=%v", c.op, c.path, err, c.ok)
		}
	}
	if _, err := os.Stat(ws + "/gitdirs/proj/HEAD"); err != nil {
		t.Fatal(err)
	}
}

// TestDenyMissingPathCannotBeCreated: a deny entry whose path does not exist
// yet is held: the command can create it neither as a directory nor as a
// file, and nothing is left behind; a sibling can be created.
func TestDenyMissingPathCannotBeCreated(t *testing.T) {
	sandboxModes(t, func(t *testing.T, useNS bool, shm func(*domain.TurnExecutionSecuritySnapshot, string) *Result) {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"dir/": "", "other/": ""})
		s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
		s.Sandbox.Filesystem.Entries = append(s.Sandbox.Filesystem.Entries, domain.FilesystemEntry{
			Kind: domain.PathExplicit, Path: ws + "/dir/later", ResolvedPath: ws + "/dir/later", Access: domain.AccessDeny, Provenance: domain.ProvenanceTaskCap})
		refused(t, shm, s, "mkdir dir/later && echo x > dir/later/f", "echo x > dir/later", "rmdir dir/later && echo x > dir/later")
		if exists(ws + "/dir/later") {
			t.Fatal("the denied path exists after the commands")
		}
		if useNS {
			allowed(t, shm, s, "mkdir dir/other && echo x > dir/other/f")
		} else {
			allowed(t, shm, s, "echo x > other/f")
		}
	})
}
