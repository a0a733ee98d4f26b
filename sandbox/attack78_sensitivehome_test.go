package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack78SensitiveStoreWithMissingParentIsCreated (seventy-eighth
// review, high where a writable root is a home: a host program runs what
// the agent wrote): the seventy-third review's fix (holdDenyWays) holds the
// missing way to a profile's deny entry, and holds() a missing deny whose
// directory exists, but a sensitive path (the credential stores under a
// home, domain.SensitiveHomeNames: .kube/config, .cargo/credentials.toml,
// .docker/config.json, .config/gh/hosts.yml, …) that is missing at the
// start is no carve-out at all (buildFSView adds one only where
// kernelMasks: an existing path), so it is neither held, nor its way, nor
// set aside after the command. The README says such a store "created
// while the command runs … is not masked"; what it does not say is that
// it stays, which is the seventy-third review's finding for a profile
// deny, fixed there and not here: a turn rooted
// at a home (the person starts the agent in ~, or the server's own home
// given as a sensitive path lies under a root) runs "mkdir .kube && cat >
// .kube/config", and the file stays, though the decision path refuses the
// same write as sensitive_path. A kubeconfig is a program to run (a user's
// exec credential plugin runs on the person's next kubectl); a hard link
// planted at .cargo/credentials.toml or .kube/config receives the token
// the person's cargo login or kubectl writes there in place, which the
// agent reads through its other name. Both the literal sensitive paths
// (SnapshotInputs.SensitivePaths) and the pattern ones of /home/* are
// tried (.cargo/credentials.toml with its directory present, .kube/config
// and .docker/config.json with it missing).
//
// Control: the profile's own deny under a missing directory is held.
//
// Fix: apply holdDenyWays (or, better, hold the deny name after making
// its way as the server) to sensitive entries too, including the /home/*
// patterns expanded for the homes that lie in a writable root; and set
// aside after a command any sensitive path it created.
func TestAttack78SensitiveStoreWithMissingParentIsCreated(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	homes := map[string]string{"extra": visibleWorkspace(t) + "/svc"}
	if fi, err := os.Stat("/home"); err == nil && fi.IsDir() {
		d, err := os.MkdirTemp("/home", "turnstile78-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		os.Chmod(d, 0o755)
		homes["/home/*"] = d
	}
	for kind, ws := range homes {
		t.Run(kind, func(t *testing.T) {
			if err := os.MkdirAll(ws+"/.cargo", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(ws+"/leak", []byte("agent's\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			appRead := []string{filepathDir(testExe(t))}
			set := domain.ProfileSet{"p": {Name: "p", Extends: domain.BuiltinWorkspace, Filesystem: map[string]domain.Access{ws + "/.vault/prod": domain.AccessDeny}}}
			cp, err := domain.CompileProfile(set, "p", domain.ProfileEnv{Cwd: ws, WorkspaceRoot: ws, AppReadRoots: appRead}, nil)
			if err != nil {
				t.Fatal(err)
			}
			in := domain.SnapshotInputs{Cwd: ws, WorkspaceRoot: ws, AppReadRoots: appRead, Kernel: machine().Kernel}
			if kind == "extra" {
				in.SensitivePaths = domain.SensitiveHomePaths(ws)
			}
			s, err := domain.ResolveProfileSnapshot(cp, domain.SourceComposer, in)
			if err != nil {
				t.Fatal(err)
			}
			// The decision path refuses the store, present or not.
			for _, p := range []string{".cargo/credentials.toml", ".kube/config"} {
				if writeDecision(&s, ws+"/"+p) == nil {
					t.Fatalf("premise: write_file %s allowed", p)
				}
			}
			// Control: a profile's own deny under a missing directory
			// (the seventy-third review's fix) is held; the command
			// writes the home around it.
			r := sh(t, &s, `mkdir -p .vault/prod && ln leak .vault/prod/key; echo ok > ok`)
			t.Logf("control: exit %d, stderr %q", r.ExitCode, r.Stderr)
			if readFile(t, ws+"/ok") != "ok\n" || exists(ws+"/.vault/prod/key") {
				t.Fatal("control: the command did not write the home, or made the profile's denied .vault/prod")
			}
			// The attack: the store's directory missing.
			r = sh(t, &s, `ln leak .cargo/credentials.toml; mkdir -p .kube .docker && printf 'apiVersion: v1\nusers:\n- name: u\n  user:\n    exec:\n      command: /bin/sh\n' > .kube/config && ln leak .docker/config.json && echo planted`)
			t.Logf("attack: exit %d, stdout %q, stderr %q, set aside %+v", r.ExitCode, r.Stdout, r.Stderr, r.Quarantined)
			for _, p := range []string{".cargo/credentials.toml", ".kube/config", ".docker/config.json"} {
				if exists(ws + "/" + p) {
					t.Errorf("the command created the sensitive %s/%s (missing at the start) and it stayed", ws, p)
				}
			}
		})
	}
}
