package domain

import (
	"slices"
	"testing"
)

// The hundred-and-fourteenth review: fields of the execution security
// snapshot that Widens (and SandboxNarrows, which it reads backwards) do
// not compare, each shown with what it changes (a decision, an
// Approvable snapshot, a spawn plan's input, AccessAt) and a control that
// a compared field of the same dimension is a widening.

var attack114Kernel = KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true}

func attack114Mode(t *testing.T, m Mode) TurnExecutionSecuritySnapshot {
	t.Helper()
	s, err := ResolveSnapshot(SnapshotInputs{Profile: ResolveProfile(&ProfileRequest{Mode: m}, SourceComposer),
		Cwd: "/work/repo", WorkspaceRoot: "/work/repo", Kernel: attack114Kernel})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAttack114_WidensIgnoresNetworkLocked: a disabled network that is
// Locked (a task cap's or a parent's: no approval can enable it; the
// decision-time snapshot, Approvable, keeps it disabled) and the same
// network unlocked (Approvable enables it, so a network call is put to a
// person) compare equal: Widens looks only at the mode and the unix
// sockets of a disabled network.
//
// It is reached through a parent's narrowing: a grandchild C that asked for
// supervised (network disabled, not locked) under a child P whose cap
// limited its network to POST; the root is then narrowed to a "limited"
// network (GET, HEAD, OPTIONS), so P's network becomes disabled and locked
// (methods that share nothing: IntersectNetwork). C bounded again by P is
// locked too, but Widens says C as it was is not wider than that, so the
// change from the parent (decideChange, FromParent) is skipped ("nothing
// narrower") and C keeps an approvable network its parent no longer has.
//
// Control: a grandchild started under the narrowed P is locked, and
// enabling the network is a widening.
func TestAttack114_WidensIgnoresNetworkLocked(t *testing.T) {
	root := attack114Mode(t, ModeFullAccess)
	p, err := ResolveChildSnapshot(ChildInputs{Parent: &root, ParentTurnID: "root",
		Cap: &TaskCap{Network: &NetworkPolicy{Mode: NetworkEnabled, AllowLocalhost: true, AllowUnixSockets: true, AllowPrivateNetworks: true, AllowedMethods: []string{"POST"}}}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := ResolveChildSnapshot(ChildInputs{Requested: &ProfileRequest{Mode: ModeSupervised}, Parent: &p, ParentTurnID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Network.Mode != NetworkDisabled || c.Network.Locked {
		t.Fatalf("setup: grandchild network %+v", c.Network)
	}
	// The root is narrowed to a limited network.
	limited := root
	limited.Network.AllowedMethods = []string{"GET", "HEAD", "OPTIONS"}
	if !Widens(&limited, &root) {
		t.Fatalf("setup: the limited root is not narrower")
	}
	p2 := NarrowToParent(&p, &limited, "root")
	if p2.Network.Mode != NetworkDisabled || !p2.Network.Locked {
		t.Fatalf("setup: narrowed child network %+v", p2.Network)
	}
	c2 := NarrowToParent(&c, &p2, "p")
	if !c2.Network.Locked {
		t.Fatalf("setup: the grandchild bounded by its narrowed parent is not locked: %+v", c2.Network)
	}
	// Control: a grandchild started under the narrowed parent is locked,
	// and its decisions' snapshot keeps the network off.
	fresh, err := ResolveChildSnapshot(ChildInputs{Requested: &ProfileRequest{Mode: ModeSupervised}, Parent: &p2, ParentTurnID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if a := fresh.Approvable(); !fresh.Network.Locked || a.Network.Mode != NetworkDisabled {
		t.Fatalf("control: a grandchild started under the narrowed parent has an approvable network: %+v", a.Network)
	}
	// Control: enabling the network is a widening.
	enabled := c2
	enabled.Network.Mode = NetworkEnabled
	if !Widens(&c2, &enabled) {
		t.Fatalf("control: enabling the network is not a widening")
	}
	if a, b := c.Approvable(), c2.Approvable(); a.Network.Mode != NetworkEnabled || b.Network.Mode != NetworkDisabled {
		t.Fatalf("setup: approvable networks %s (kept) and %s (narrowed)", a.Network.Mode, b.Network.Mode)
	}
	if !Widens(&c2, &c) {
		t.Errorf("Widens: the grandchild as it was (network disabled but approvable: Locked false) is not wider than bounded by its narrowed parent (Locked: no approval enables it); the change from the parent is skipped and the grandchild keeps a network a person may enable")
	}
	unlocked := c2
	unlocked.Network.Locked = false
	if !Widens(&c2, &unlocked) {
		t.Errorf("Widens: unlocking a disabled network (approvals may enable it again) is not a widening")
	}
}

// TestAttack114_WidensIgnoresShellEnabled: a snapshot whose shell is off
// (a cap's process policy, or command families that share nothing) refuses
// every command (Evaluate: process.shell_enabled; PlanSpawn:
// shell_disabled); the same snapshot with the shell on runs them, and
// Widens does not compare ShellEnabled. normProcess even clears the
// command lists of a snapshot whose shell is off, so nothing else differs.
//
// Control: dropping a denied command is a widening.
func TestAttack114_WidensIgnoresShellEnabled(t *testing.T) {
	on := attack114Mode(t, ModeAutoAcceptEdits)
	off := on
	off.Process.ShellEnabled = false
	sh := &Action{Kind: ActionShellCommand, ToolName: "bash", Argv: []string{"/bin/sh", "-c", "true"}}
	if d := Evaluate(&off, sh, nil); d.Behavior != BehaviorDeny || d.DecidedBy != "process.shell_enabled" {
		t.Fatalf("setup: shell off decides %+v", d)
	}
	if d := Evaluate(&on, sh, nil); d.Behavior == BehaviorDeny {
		t.Fatalf("setup: shell on decides %+v", d)
	}
	// Control: a denied command dropped is a widening.
	fewer := off
	fewer.Process.DeniedCommands = slices.DeleteFunc(slices.Clone(off.Process.DeniedCommands), func(c string) bool { return c == off.Process.DeniedCommands[0] })
	if len(off.Process.DeniedCommands) == 0 || !Widens(&off, &fewer) {
		t.Fatalf("control: dropping a denied command is not a widening")
	}
	if !Widens(&off, &on) {
		t.Errorf("Widens: turning the shell on (every command refused → commands run) is not a widening")
	}
}

// TestAttack114_WidensIgnoresEntryKind: filesystemNarrows compares
// entries with its own entryAccessAt (the most specific entry wins), not
// with AccessAt, the rule the checker and the kernel plan follow (the
// strongest grant no deny shadows, then capped by every protected and
// sensitive entry). A protected read-only carve-out inside a writable
// root (.claude: Claude Code's hooks) and a read *grant* at the same path
// read alike to entryAccessAt, but AccessAt gives the carve-out read and
// the grant write (the root's write is the strongest grant there). So
// turning the carve-out into a grant is no widening, and the way back no
// narrowing for a command still running.
//
// Control: dropping the carve-out is a widening (and its return a
// narrowing).
func TestAttack114_WidensIgnoresEntryKind(t *testing.T) {
	old := attack114Mode(t, ModeAutoAcceptEdits)
	const dir, file = "/work/repo/.claude", "/work/repo/.claude/settings.json"
	i := slices.IndexFunc(old.Sandbox.Filesystem.Entries, func(e FilesystemEntry) bool {
		return e.Kind == PathProtected && e.ResolvedPath == dir && e.Access == AccessRead
	})
	if i < 0 {
		t.Fatalf("setup: no protected %s", dir)
	}
	grant := old
	grant.Sandbox.Filesystem.Entries = slices.Clone(old.Sandbox.Filesystem.Entries)
	grant.Sandbox.Filesystem.Entries[i].Kind = PathExplicit
	if a, b := AccessAt(&old.Sandbox.Filesystem, file), AccessAt(&grant.Sandbox.Filesystem, file); a != AccessRead || b != AccessWrite {
		t.Fatalf("setup: AccessAt %s: carve-out %s, grant %s", file, a, b)
	}
	// Control: dropping the carve-out is a widening, and its return a
	// narrowing.
	dropped := old
	dropped.Sandbox.Filesystem.Entries = slices.Delete(slices.Clone(old.Sandbox.Filesystem.Entries), i, i+1)
	if !Widens(&old, &dropped) || !SandboxNarrows(&dropped, &old) {
		t.Fatalf("control: dropping the protected %s is not a widening", dir)
	}
	if !Widens(&old, &grant) {
		t.Errorf("Widens: %s protected read → a read grant inside the writable root (AccessAt %s: read → write) is not a widening", dir, file)
	}
	if !SandboxNarrows(&grant, &old) {
		t.Errorf("SandboxNarrows: a command that may write %s (AccessAt write) is not stopped by a snapshot that makes it read-only", file)
	}
}

// TestAttack114_WidensIgnoresProtectedPin: the protected ".git" entry of a
// writable root has access write: it does not change what may be written
// below it, it pins the directory (it cannot be renamed, removed or
// replaced, and, Reserved, not created when missing): a command that may
// move .git aside makes a new .git/config and hooks, which the person's
// next git command runs. entryAccessAt reads write with or without it
// (the root's), so dropping the pin is no widening.
//
// Control: dropping the read-only .git/hooks carve-out is a widening.
func TestAttack114_WidensIgnoresProtectedPin(t *testing.T) {
	old := attack114Mode(t, ModeAutoAcceptEdits)
	find := func(p string) int {
		return slices.IndexFunc(old.Sandbox.Filesystem.Entries, func(e FilesystemEntry) bool {
			return e.Kind == PathProtected && e.ResolvedPath == p
		})
	}
	pin, hooks := find("/work/repo/.git"), find("/work/repo/.git/hooks")
	if pin < 0 || hooks < 0 || old.Sandbox.Filesystem.Entries[pin].Access != AccessWrite || !old.Sandbox.Filesystem.Entries[pin].Reserved {
		t.Fatalf("setup: protected .git entries %d %d", pin, hooks)
	}
	without := func(i int) TurnExecutionSecuritySnapshot {
		s := old
		s.Sandbox.Filesystem.Entries = slices.Delete(slices.Clone(old.Sandbox.Filesystem.Entries), i, i+1)
		return s
	}
	if h := without(hooks); !Widens(&old, &h) {
		t.Fatalf("control: dropping the read-only .git/hooks is not a widening")
	}
	p := without(pin)
	if !Widens(&old, &p) {
		t.Errorf("Widens: dropping the pin on .git (it may then be renamed, replaced or created) is not a widening")
	}
	if !SandboxNarrows(&p, &old) {
		t.Errorf("SandboxNarrows: a command that may move .git aside is not stopped by a snapshot that pins it")
	}
}

// TestAttack114_WidensIgnoresBackendRequirement: a restricted snapshot
// whose backend is required refuses its commands where the kernel cannot
// confine them (PlanSpawn: sandbox_unavailable without Landlock or
// seccomp); the same snapshot with the backend optional runs them
// unconfined. Widens does not compare the requirement.
//
// Control: an unrestricted filesystem is a widening.
func TestAttack114_WidensIgnoresBackendRequirement(t *testing.T) {
	old := attack114Mode(t, ModeAutoAcceptEdits)
	if old.Sandbox.BackendRequirement != BackendRequired {
		t.Fatalf("setup: requirement %s", old.Sandbox.BackendRequirement)
	}
	un := old
	un.Sandbox.Filesystem.Unrestricted = true
	if !Widens(&old, &un) {
		t.Fatalf("control: an unrestricted filesystem is not a widening")
	}
	opt := old
	opt.Sandbox.BackendRequirement = BackendOptional
	if !Widens(&old, &opt) {
		t.Errorf("Widens: a required sandbox backend made optional (commands run unconfined where the kernel cannot confine them) is not a widening")
	}
}

// TestAttack114_ChildDropsParentsLedTo: the unit form of
// tests/attack114_childledto_test.go. A parent's workspace root bound
// where it led at the start (led_to) and a child started without roots of
// its own: IntersectFilesystem keeps, of the two equal roots, the child's
// entry (entryLess orders them by kind, provenance and path, all equal
// for two modes' roots), which has no led_to, so the child's root is
// granted wherever the path leads at spawn. Widens does not compare
// led_to, so the child is not wider than its parent by it.
//
// Control: the same child given the root links (as a child naming its own
// roots is, by the engine's checkRoots) is bound.
func TestAttack114_ChildDropsParentsLedTo(t *testing.T) {
	links := map[string]string{"/work/repo": "/work/repo"}
	p, err := ResolveSnapshot(SnapshotInputs{Profile: ResolveProfile(&ProfileRequest{Mode: ModeAutoAcceptEdits}, SourceComposer),
		Cwd: "/work/repo", WorkspaceRoot: "/work/repo", Kernel: attack114Kernel})
	if err != nil {
		t.Fatal(err)
	}
	BindRootLinks(&p, links)
	ledTo := func(s *TurnExecutionSecuritySnapshot) string {
		for _, e := range s.Sandbox.Filesystem.Entries {
			if e.Kind == PathWorkspaceRoot && e.ResolvedPath == "/work/repo" {
				return e.LedTo
			}
		}
		return "(no root)"
	}
	if ledTo(&p) != "/work/repo" {
		t.Fatalf("setup: parent led_to %q", ledTo(&p))
	}
	bound, err := ResolveChildSnapshot(ChildInputs{Parent: &p, ParentTurnID: "p", Inputs: SnapshotInputs{RootLinks: links}})
	if err != nil {
		t.Fatal(err)
	}
	if ledTo(&bound) != "/work/repo" {
		t.Fatalf("control: a child given the links is not bound: %q", ledTo(&bound))
	}
	c, err := ResolveChildSnapshot(ChildInputs{Parent: &p, ParentTurnID: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ledTo(&c); got != "/work/repo" {
		t.Errorf("a child started without roots of its own has its parent's root unbound (led_to %q, parent's %q): a swap of the root for a link takes the child's grant where it leads", got, ledTo(&p))
	}
	// (Adjusted with the fix: the child is bound now, so Widens is asked
	// of an unbound copy of it.)
	u := c
	u.Sandbox.Filesystem.Entries = slices.Clone(c.Sandbox.Filesystem.Entries)
	for i := range u.Sandbox.Filesystem.Entries {
		u.Sandbox.Filesystem.Entries[i].LedTo = ""
	}
	if !Widens(&p, &u) {
		t.Errorf("Widens: a child whose root is unbound (led_to dropped) is not wider than its bound parent")
	}
	if Widens(&p, &c) {
		t.Errorf("control: the bound child is wider than its parent")
	}
}
