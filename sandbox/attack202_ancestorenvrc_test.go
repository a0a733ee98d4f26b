package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack202_AncestorEnvrcSourcesRoot (review 202; the class of
// TestAttack202_AncestorProtectedLinkedIn, no symlink): the person's
// ws/.envrc sources sub/env.sh (direnv runs it at every cd into ws). A
// command over ws holds sub/env.sh read-only (or sets a made one aside);
// a command over ws/sub, below the .envrc, may write it: what a protected
// file above the root names inside the root is not looked at.
//
// Control: the same write by a command over ws.
func TestAttack202_AncestorEnvrcSourcesRoot(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct {
		name, over string
		had        bool // env.sh there before the command
	}{{"control-over-ws", "", true}, {"control-over-ws-missing", "", false}, {"over-sub", "/sub", true}, {"over-sub-missing", "/sub", false}} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			files := map[string]string{".envrc": "source_env sub/env.sh\n", "sub/README": "r\n"}
			if c.had {
				files["sub/env.sh"] = "export A=1\n"
			}
			mkfiles(t, ws, files)
			r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws+c.over, machine().Kernel),
				"echo 'touch /tmp/pwned' > "+ws+"/sub/env.sh; echo done")
			t.Logf("command over ws%s: %q set aside %v", c.over, r.Stderr, quarantined(r))
			if b, _ := os.ReadFile(ws + "/sub/env.sh"); string(b) == "touch /tmp/pwned\n" {
				t.Errorf("a command over ws%s wrote sub/env.sh, which the person's ws/.envrc sources; kept", c.over)
			}
		})
	}
}
