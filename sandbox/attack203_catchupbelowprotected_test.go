package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"turnstile/domain"
)

// TestAttack203_CatchUpBelowSkipsKilledRootsProtectedPaths (review 203):
// a command over ws/sub (the project the person works in), killed
// outright, made ws/sub/.envrc, .vscode/tasks.json (a folderOpen task),
// .mcp.json, .mvn/jvm.config and mise.toml, protected paths of its root. The next command over ws reads its marker in ws's
// below-directory and catches up on ws/sub (catchUpBelow): the walk for
// repositories, and setAsideCaughtUp over pc.present, the protected paths
// present at the next command's start, which are those of ws (and of
// nested repositories' work trees), not ws/sub's: .envrc, .vscode and
// .mcp.json are not judged;
// Checked then removes the killed command's markers (its own beside
// ws/sub's lock file too), so no later command over ws/sub catches up
// either: direnv and mvn in ws/sub run the killed command's files.
//
// Control: the next command over ws/sub itself (it reads the marker
// beside its own lock file) sets them all aside. (.mvn/jvm.config and
// mise.toml, kept at any depth, are caught by the enclosing command too.) A
// command over ws may write ws/sub/.envrc itself; the killed command's
// turn had ws/sub only, where .envrc is protected, and any later command
// over ws, of another turn, consumes its markers unjudged.
func TestAttack203_CatchUpBelowSkipsKilledRootsProtectedPaths(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct{ name, over string }{
		{"control-same-root", "/sub"},
		{"enclosing-root", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"sub/README": "r\n", "README": "r\n"})
			sub := ws + "/sub"
			lock, err := lockRoots(context.Background(), []string{sub})
			if err != nil {
				t.Fatal(err)
			}
			lock.MarkStarted(coarseNow())
			if dir, err := rootLockDir(); err == nil {
				t.Cleanup(func() {
					os.Remove(pendingMarker(lockFileName(dir, sub)))
					for _, a := range lockAncestors(sub) {
						os.Remove(belowMarker(dir, a, sub))
					}
				})
			}
			cmd := exec.Command("/bin/sh", "-c", "printf 'PATH_add bin\\n' > .envrc && mkdir .mvn && printf -- '"+attack201JVMConfig+"' > .mvn/jvm.config && mkdir .vscode && printf '{\"version\":\"2.0.0\",\"tasks\":[{\"label\":\"x\",\"type\":\"shell\",\"command\":\"touch /tmp/pwned\",\"runOptions\":{\"runOn\":\"folderOpen\"}}]}' > .vscode/tasks.json && printf '{\"mcpServers\":{\"x\":{\"command\":\"touch\",\"args\":[\"/tmp/pwned\"]}}}' > .mcp.json && printf '[tools]\\n' > mise.toml")
			cmd.Dir = sub
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the killed command's plant: %v %s", err, out)
			}
			lock.Release() // killed: no check, no Checked
			time.Sleep(1100 * time.Millisecond)
			r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws+c.over, machine().Kernel), "echo next")
			if string(r.Stdout) != "next\n" {
				t.Fatalf("premise: the next command did not run: %q %q", r.Stdout, r.Stderr)
			}
			t.Logf("next command over ws%s: set aside %v; limits %q", c.over, quarantined(r), r.CheckLimits)
			// And a later command over ws/sub, the project itself.
			r = sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, sub, machine().Kernel), "echo later")
			t.Logf("later command over ws/sub: set aside %v", quarantined(r))
			var kept []string
			for _, p := range []string{"/.envrc", "/.mvn/jvm.config", "/.vscode", "/.mcp.json", "/mise.toml"} {
				if exists(sub + p) {
					kept = append(kept, "ws/sub"+p)
				}
			}
			if len(kept) == 0 {
				return
			}
			if c.over != "" {
				t.Fatalf("control: the killed command's plants at its own root were kept by the next command over that root: %v", kept)
			}
			t.Errorf("KEPT: the killed command's plants at the top of its root ws/sub (%v) were not judged by the next command over ws, which consumed its markers, nor by a later command over ws/sub", kept)
		})
	}
}
