package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// TestAttack202_WayLinkToSetAside (review 202, against 71dc44ff): one
// command, one root. The command retargets the person's .mvn (a link of
// pc.wayLinks, trusted by its path) to ".zed" + domain.UntrustedSuffix,
// a name that does not exist, and makes .zed (a protected directory,
// missing at the start) holding jvm.config. The check judges the missing
// protected paths in order: .mvn/jvm.config first (ENOENT through the
// known link, no magic link: "not made"), then .zed, which it sets aside
// by renaming it to .zed.turnstile-untrusted — where .mvn now leads. mvn
// run in the project reads the command's jvm.config, and the check
// reported only .zed.
//
// Control: the same with .mvn pointed at .zed itself (set aside).
func TestAttack202_WayLinkToSetAside(t *testing.T) {
	f := requireKernel(t, true)
	workspace := func() string {
		ws := tempWorkspace(t)
		mkfiles(t, ws, map[string]string{"mvnfile": "x\n"})
		mustDo(t, os.Symlink("mvnfile", filepath.Join(ws, ".mvn")))
		return ws
	}
	for _, c := range []struct{ name, target string }{
		{"control-to-zed", ".zed"},
		{"to-set-aside-name", ".zed" + domain.UntrustedSuffix},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := workspace()
			r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel),
				`cd `+ws+` && mkdir .zed && printf -- '`+attack201JVMConfig+`' > .zed/jvm.config && ln -sfn `+c.target+` .mvn && echo done`)
			if string(r.Stdout) != "done\n" {
				t.Fatalf("premise: %q %q", r.Stdout, r.Stderr)
			}
			t.Logf("set aside %+v", quarantined(r))
			if got := hostReads(ws, ".mvn/jvm.config"); got == attack201JVMConfig {
				t.Errorf("the person's .mvn, retargeted to %s, was kept; the check's own set-aside of .zed put the command's jvm.config there: mvn in the project reads %q", c.target, got)
			}
		})
	}
}
