package tests

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestAttack174_FullAccessReadsEventLogThroughNestedMount (review 174,
// medium: a full_access command reads the server's event log, the store's
// digest key in clear among it, and every workspace's turns).
//
// README, "What the sandbox guarantees", the gateway's secrets row
// (full_access included): "the data directory and token files are masked
// (an empty read-only tmpfs or file) at every path their filesystem is
// mounted at". The full_access helper (sandbox/fullaccess_mask.go:
// locateSecrets, aliasTargets) masks the data directory itself and every
// other mount of the data directory's own filesystem that shows it. A
// directory of the data directory that is a mount of another filesystem
// is not looked at: here DATA/events, the embedded log store's directory,
// is a bind of a directory of a second disk (the usual way to move a
// directory onto a bigger disk: `mount --bind /mnt/big/turnstile-events
// /var/lib/turnstile/events`; a symlink there, the other usual way, is
// followed and masked: review 130). The mask on DATA hides DATA/events, but
// that disk's own mount (/mnt/big) is left as the host has it, and a
// full_access command (root over the host's files under a root server)
// reads the log's segments there: the store's digest key (the
// DigestKeyCreated event, in clear: every keyed digest the record shows
// of a redacted value becomes an offline oracle again, reviews 25 and 28),
// the credentials stream, and every workspace's events. It may write them
// too (the log is the store: a credential appended there is one the next
// start serves).
//
// A profile that grants "/" for writing, which gets the same view (the
// whole-tree view, hardenWholeTree), reads it the same way.
//
// Controls: the same command cannot read the log at its own path
// (DATA/events is masked) nor the token; a file beside the log on the
// second disk is read through the same mount (the mount works, so what is
// refused is the log).
//
// Fix direction: in the full_access (and whole-tree) helper, take every
// mount whose mount point lies inside a secret (a nested filesystem of
// the data directory) as a secret of its own, located by its mount root
// and device, and mask it wherever its filesystem shows it (aliasTargets
// on that filesystem); or have the server refuse a data directory holding
// a mount point, as it refuses one others may write.
func TestAttack174_FullAccessReadsEventLogThroughNestedMount(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (the mounts; full_access as root over the host's files)")
	}
	if os.Getenv("TURNSTILE_TOKEN") != "" {
		t.Skip("TURNSTILE_TOKEN is set: the server would take it")
	}
	base := t.TempDir()
	// The second disk: a filesystem of its own, mounted at base/big.
	big := filepath.Join(base, "big")
	if err := os.Mkdir(big, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("a174big", big, "tmpfs", 0, "size=64m,mode=755"); err != nil {
		t.Skipf("mount a tmpfs: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(big, syscall.MNT_DETACH) })
	events := filepath.Join(big, "turnstile-events")
	if err := os.Mkdir(events, 0o700); err != nil {
		t.Fatal(err)
	}
	const beside = "beside-the-log-a174\n"
	if err := os.WriteFile(filepath.Join(big, "beside.txt"), []byte(beside), 0o644); err != nil {
		t.Fatal(err)
	}
	// The data directory, its events directory bound from the second disk.
	data := filepath.Join(base, "data")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(data, "events"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(events, filepath.Join(data, "events"), "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("bind mount: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(filepath.Join(data, "events"), syscall.MNT_DETACH) })

	// A profile that grants "/" for writing gets the full_access view too
	// (README, processes row: "its view gets what a full_access command's
	// gets, the gateway's secrets masked").
	profiles := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(profiles, []byte("[permissions.rootw]\n[permissions.rootw.filesystem]\n\":root\" = \"write\"\n"+
		"[permissions.rootw.approvals]\npolicy = \"full_access\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, &Server{Data: data, Args: []string{"--profiles", profiles}})
	agent := roAs(s, s.credential("agent174", "runtime"))
	root := workspace(t)
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "a174-fa", "workspace_id": "ws", "thread_id": "th-a174",
		"workspace_root": root, "cwd": root, "permission_profile": map[string]any{"mode": "full_access"}}, http.StatusCreated, nil)
	agent.JSON("POST", "/v1/turns", map[string]any{"turn_id": "a174-rootw", "workspace_id": "ws", "thread_id": "th-a174w",
		"workspace_root": root, "cwd": root, "permission_profile": map[string]any{"profile": "rootw"}}, http.StatusCreated, nil)

	token := strings.TrimSpace(s.Token)
	var runIn func(turnID, id, script string) string

	run := func(id, script string) string { return runIn("a174-fa", id, script) }
	runIn = func(turnID, id, script string) string {
		t.Helper()
		status, d := agent.exec(turnID, "", map[string]any{"tool_call_id": id, "argv": []string{"/bin/sh", "-c", script}, "cwd": root})
		if status != http.StatusOK || !d.Ran || d.Result == nil {
			t.Fatalf("premise: the full_access command %s did not run: %d %+v", id, status, d)
		}
		shown := d.Result.Stdout
		if len(shown) > 200 {
			shown = shown[:200] + "…"
		}
		t.Logf("%s: exit %d stdout %q stderr %q", id, d.Result.ExitCode, shown, d.Result.Stderr)
		return d.Result.Stdout
	}

	// CONTROL: the data directory, the log at its own path included, and
	// the token are masked.
	if out := run("own-path", "cat "+filepath.Join(data, "token")+" "+filepath.Join(data, "events")+"/*.seg 2>&1"); strings.Contains(out, token) || strings.Contains(out, "DigestKeyCreated") {
		t.Fatalf("control: the full_access command read the data directory at its own path: %q", out)
	}
	// Premise (now that a command ran): the log holds the store's digest
	// key in clear, written through DATA/events onto the second disk.
	keyRE := regexp.MustCompile(`"key":"([A-Za-z0-9+/=]{40,})"`)
	var key string
	segs, _ := filepath.Glob(filepath.Join(events, "*.seg"))
	for _, seg := range segs {
		if b, err := os.ReadFile(seg); err == nil {
			if m := keyRE.FindSubmatch(b); m != nil {
				key = string(m[1])
			}
		}
	}
	if key == "" {
		t.Fatalf("premise: no DigestKeyCreated event in the log's segments %v", segs)
	}
	// CONTROL: the second disk's mount works for the command.
	if out := run("beside", "cat "+filepath.Join(big, "beside.txt")); out != beside {
		t.Fatalf("control: the full_access command did not read %s through the second disk's mount: %q", filepath.Join(big, "beside.txt"), out)
	}
	// ATTACK: the log through the second disk's own mount.
	if out := run("nested", "cat "+events+"/*.seg 2>&1"); strings.Contains(out, key) {
		t.Errorf("a full_access command read the server's event log at %s (the data directory's events directory, a mount of another filesystem, reached where that filesystem is mounted too): the store's digest key %q is in its output", events, key)
	}
	// The same from a profile granting "/" for writing. CONTROL: its
	// command finds the data directory masked at its own path.
	if out := runIn("a174-rootw", "rootw-own", "cat "+filepath.Join(data, "token")+" "+filepath.Join(data, "events")+"/*.seg 2>&1"); strings.Contains(out, token) || strings.Contains(out, key) {
		t.Fatalf("control: the rootw command read the data directory at its own path: %q", out)
	}
	if out := runIn("a174-rootw", "rootw-nested", "cat "+events+"/*.seg 2>&1"); strings.Contains(out, key) {
		t.Errorf("a command of a profile granting / for writing read the server's event log at %s: the store's digest key %q is in its output", events, key)
	}
}
