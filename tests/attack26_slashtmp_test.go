package tests

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// attack26TmpProfiles: "tmpw26" is the workspace profile with the host's
// /tmp writable (":slash_tmp" = "write", the token a profile uses for
// temporary files; the anchors' workspace profile makes /tmp writable by
// default); "ws26" is the plain workspace profile. Both run commands
// without asking, so that the test is about the sandbox only.
const attack26TmpProfiles = `
[permissions.tmpw26]
extends = ":workspace"
[permissions.tmpw26.filesystem]
":slash_tmp" = "write"
[permissions.tmpw26.approvals]
policy = "full_access"

[permissions.ws26]
extends = ":workspace"
[permissions.ws26.approvals]
policy = "full_access"
`

// TestAttack26SlashTmpWriteActsAsRoot: a root server runs a restricted
// command as the unprivileged sandbox uid so that it "has no owner access
// to any file outside its writable roots", and idmaps each writable root
// so that the root's owner appears as that uid. With ":slash_tmp" =
// "write", /tmp is such a root, and /tmp belongs to root: the idmap makes
// the command root's owner over the whole shared, sticky /tmp. Whatever
// root owns there is the command's, whatever its mode: it reads and
// rewrites a root 0700 directory's 0600 file (systemd's PrivateTmp
// directories of root services, snap's private tmp, a root tool's
// scratch files), and every other turn's isolated temp dir, which the
// server makes root 0700 in /tmp (another turn's command's temporary
// files, read and changed while it runs). What it creates there is
// root's on the host (files and symlinks that protected_symlinks and
// protected_regular then trust as root's). Wanted: a writable /tmp lets
// the command create and use its own files there, as the sandbox uid may
// in a sticky world-writable directory, and gives it nothing of root's.
// Control: the command makes, writes and reads back a file of its own in
// /tmp.
func TestAttack26SlashTmpWriteActsAsRoot(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("the sandbox uid and the idmap are a root server's")
	}
	// Root's private files in /tmp, as a root service's PrivateTmp or a
	// root tool leaves them.
	priv, err := os.MkdirTemp("/tmp", "attack26-root-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(priv) })
	if err := os.Chmod(priv, 0o700); err != nil {
		t.Fatal(err)
	}
	const rootSecret = "root-only-26\n"
	secret := filepath.Join(priv, "secret")
	if err := os.WriteFile(secret, []byte(rootSecret), 0o600); err != nil {
		t.Fatal(err)
	}

	file := filepath.Join(t.TempDir(), "profiles.toml")
	if err := os.WriteFile(file, []byte(attack26TmpProfiles), 0o644); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", file)
	root, other := workspace(t), workspace(t)
	if st, body := startProfileTurn(s, "t26", root, map[string]any{"profile": "tmpw26"}); st != http.StatusCreated {
		t.Fatalf("start t26: %d %s", st, body)
	}
	if st, body := startProfileTurn(s, "o26", other, map[string]any{"profile": "ws26"}); st != http.StatusCreated {
		t.Fatalf("start o26: %d %s", st, body)
	}
	run := func(call, script string) decisionAnswer {
		t.Helper()
		return s.execArgv("t26", call, "sh", "-c", script)
	}

	// Control: the honest use of a writable /tmp.
	ctl := run("own", `f=$(mktemp /tmp/attack26-own-XXXXXX) && echo mine > "$f" && cat "$f" && rm -f "$f"`)
	if ctl.Result.ExitCode != 0 || ctl.Result.Stdout != "mine\n" {
		t.Fatalf("control: a file of the command's own in /tmp: %+v", ctl.Result)
	}

	var leaks []string
	// What it makes in /tmp: root's 0700 directory on the host, the shape
	// root's own tools trust there (tmux's /tmp/tmux-0, whose socket an
	// attached client takes commands from), and root's symlinks, which
	// protected_symlinks lets every user follow.
	mine := filepath.Join("/tmp", fmt.Sprintf("attack26-made-%d", os.Getpid()))
	t.Cleanup(func() { os.RemoveAll(mine) })
	run("made", fmt.Sprintf(`mkdir -m 700 %s && ln -s /etc/hostname %s/link`, mine, mine))
	var st syscall.Stat_t
	if err := syscall.Lstat(mine, &st); err == nil && st.Uid == 0 {
		leaks = append(leaks, fmt.Sprintf("made %s, which belongs to root on the host (mode %o)", mine, st.Mode&0o7777))
	}
	if err := syscall.Lstat(filepath.Join(mine, "link"), &st); err == nil && st.Uid == 0 {
		leaks = append(leaks, fmt.Sprintf("made %s/link, a symlink that belongs to root on the host", mine))
	}
	// Root's 0700 directory and 0600 file.
	d := run("rootfile", fmt.Sprintf(`cat %s; echo agent-was-here >> %s`, secret, secret))
	if strings.Contains(d.Result.Stdout, strings.TrimSpace(rootSecret)) {
		leaks = append(leaks, fmt.Sprintf("read root's 0600 %s in a root 0700 directory of /tmp (%q)", secret, d.Result.Stdout))
	}
	if b, _ := os.ReadFile(secret); string(b) != rootSecret {
		leaks = append(leaks, fmt.Sprintf("rewrote root's 0600 %s: now %q", secret, b))
	}

	// Another turn's command, running: its isolated temp dir is root 0700
	// in /tmp.
	ready, release := filepath.Join(other, "ready"), filepath.Join(other, "release")
	bg := execInBackground(s, "o26", map[string]any{"tool_call_id": "victim", "timeout_ms": 60000, "argv": []string{"sh", "-c",
		fmt.Sprintf(`echo other-turn-secret-26 > "$TMPDIR/secret" && echo "$TMPDIR" > %s.tmp && mv %s.tmp %s; `+
			`while [ ! -e %s ]; do sleep 0.05; done; cat "$TMPDIR/secret"`, ready, ready, ready, release)}})
	var victimTmp string
	pollUntil(t, "the other turn's command to write its temporary file", func() bool {
		b, err := os.ReadFile(ready)
		victimTmp = strings.TrimSpace(string(b))
		return err == nil && victimTmp != ""
	})
	d = run("othertmp", fmt.Sprintf(`cat %s/secret; echo planted-by-t26 > %s/secret`, victimTmp, victimTmp))
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	v := <-bg
	if !v.Ran || v.Result == nil {
		t.Fatalf("control: the other turn's command: %+v", v)
	}
	if strings.Contains(d.Result.Stdout, "other-turn-secret-26") {
		leaks = append(leaks, fmt.Sprintf("read another turn's temporary file %s/secret while its command ran", victimTmp))
	}
	if strings.Contains(v.Result.Stdout, "planted-by-t26") {
		leaks = append(leaks, "rewrote another turn's temporary file under its running command (it read back \"planted-by-t26\")")
	}
	if len(leaks) > 0 {
		t.Fatalf("a command whose profile makes /tmp writable acts as root's owner over /tmp:\n  %s", strings.Join(leaks, "\n  "))
	}
}
