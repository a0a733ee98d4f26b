package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAttack81SensitiveStoreInASymlinkedHome (eighty-first review, medium:
// where a home under /home is a symlink, as on every rpm-ostree system,
// Fedora Silverblue, Kinoite and CoreOS, whose /home is a link to
// /var/home, or a home moved to another disk as /home/alice ->
// /data/alice): watchDenied expands a sensitive pattern
// (/home/*/.kube/config) by listing /home and joins each match as it is
// named (/home/alice/.kube/config), then asks whether that lexical path
// lies in a writable root. The roots are canonical (/var/home/alice), so
// for a symlinked home no match is ever "in a root", and nothing is
// watched: the seventy-eighth and eightieth reviews' finding (a missing
// credential store made by the command stays) comes back whole for a turn
// rooted at such a home, or at a writable ~/.kube or ~/.docker in it. The
// carve-outs of the stores that do exist (buildFSView's addRule) are
// canonicalised; the watch is not. The command writes .kube/config with an
// exec plugin, which the person's next kubectl runs.
//
// Control: the same home reached without a link (its canonical path
// listed under the pattern's directory) has its store set aside.
//
// Fix: canonicalise each match in watchDenied (memo.canonical of m+rest,
// as buildFSView does for the literal deny entries and the carve-outs)
// before asking inRoot, and compare the prefix check against the
// canonical prefix too.
func TestAttack81SensitiveStoreInASymlinkedHome(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	if fi, err := os.Stat("/home"); err != nil || !fi.IsDir() {
		t.Skip("no /home")
	}
	base := visibleWorkspace(t)
	kubeconfig := `printf 'apiVersion: v1\nusers:\n- name: u\n  user:\n    exec:\n      command: /bin/sh\n' > .kube/config; mkdir -p .docker && echo '{"credsStore":"evil"}' > .docker/config.json; echo planted`
	for _, linked := range []bool{false, true} {
		name := map[bool]string{false: "control_plain_home", true: "symlinked_home"}[linked]
		t.Run(name, func(t *testing.T) {
			real := filepath.Join(base, name)
			if err := os.MkdirAll(real+"/.kube", 0o755); err != nil {
				t.Fatal(err)
			}
			var home string
			if linked {
				// /home/NAME -> the real home elsewhere.
				d, err := os.MkdirTemp("/home", "turnstile81-")
				if err != nil {
					t.Fatal(err)
				}
				os.Remove(d)
				if err := os.Symlink(real, d); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.Remove(d) })
				home = d
			} else {
				d, err := os.MkdirTemp("/home", "turnstile81-")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.RemoveAll(d) })
				os.Chmod(d, 0o755)
				if err := os.MkdirAll(d+"/.kube", 0o755); err != nil {
					t.Fatal(err)
				}
				home, real = d, d
			}
			// The turn is rooted at the home, as the person named it.
			s := execProfileSnapshot(t, home, nil)
			if writeDecision(&s, home+"/.kube/config") == nil {
				t.Fatal("premise: write_file of the home's .kube/config allowed")
			}
			r := sh(t, &s, kubeconfig)
			t.Logf("%s: exit %d, stdout %q, stderr %q, set aside %+v", name, r.ExitCode, r.Stdout, r.Stderr, r.Quarantined)
			if string(r.Stdout) != "planted\n" {
				t.Fatalf("premise: the command did not run as written (exit %d, stderr %q)", r.ExitCode, r.Stderr)
			}
			for _, p := range []string{"/.kube/config", "/.docker/config.json"} {
				if exists(real + p) {
					t.Errorf("%s: the command created the credential store %s%s in the home (%s) and it stayed", name, home, p, real)
				}
			}
		})
	}
}

// TestAttack81SensitiveStoreWriteDecisionByTheHomesRealPath (eighty-first
// review, medium: a home that is a symlink, /home/alice -> /data/alice, a
// home moved to another disk): the decision path's sensitiveRule
// canonicalises a pattern's prefix before its first "*" (/home), never
// the matched home itself, so /home/*/.kube/config matches
// /home/alice/.kube/config and not /data/alice/.kube/config, the same
// file by its real name. A store that exists is refused under either name
// (it is a carve-out, canonicalised); one that does not exist yet is
// allowed to write_file by the home's real path, in a turn rooted at the
// home: the runtime writes the agent's kubeconfig (an exec plugin the
// person's next kubectl runs) or .docker/config.json, and no check after
// a command ever looks, since no command ran.
//
// Control: the same write named through /home is refused (sensitive_path).
//
// Fix: expand a sensitive pattern's matches when the view is built (as
// sensitiveMatches does for the masks) and canonicalise each match, keeping
// a rule for the canonical form of every matched home, or match a pattern
// against the canonical path of the directory its wildcard part names.
func TestAttack81SensitiveStoreWriteDecisionByTheHomesRealPath(t *testing.T) {
	requireRoot(t)
	if fi, err := os.Stat("/home"); err != nil || !fi.IsDir() {
		t.Skip("no /home")
	}
	real := visibleWorkspace(t) + "/realhome"
	if err := os.MkdirAll(real+"/.kube", 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := os.MkdirTemp("/home", "turnstile81-")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(d)
	if err := os.Symlink(real, d); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(d) })
	s := execProfileSnapshot(t, d, nil)
	for _, store := range []string{"/.kube/config", "/.docker/config.json", "/.cargo/credentials.toml"} {
		// Control: named through /home, refused.
		if writeDecision(&s, d+store) == nil {
			t.Fatalf("control: write_file %s%s allowed", d, store)
		}
		if err := writeDecision(&s, real+store); err == nil {
			t.Errorf("write_file of the home's credential store by its real path %s%s is allowed (through %s it is sensitive_path)", real, store, d)
		}
	}
}
