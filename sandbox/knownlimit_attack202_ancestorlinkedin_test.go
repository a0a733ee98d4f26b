//go:build knownlimits

package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack202_AncestorProtectedLinkedIn (review 202; not from 71dc44ff
// nor cf7a1b0d, found on the way): the person's ws/.mvn is a symlink to
// sub/mvn, so ws/.mvn/jvm.config (protected: Maven's JVM options) is the
// file ws/sub/mvn/jvm.config. A command over ws/sub may write that file:
// the protected list is applied below the writable roots only, and a
// protected path of a directory above the root whose way leads into the
// root by a person's symlink is neither held read-only nor judged after.
// (The enclosing repository's config refs into the root are, discovery's
// enclosing; its protected paths are not.) mvn run in ws then reads the
// command's options.
//
// Control: the same write by a command over ws (the path is held).
func TestAttack202_AncestorProtectedLinkedIn(t *testing.T) {
	requireRoot(t)
	requireKernel(t, true)
	for _, c := range []struct{ name, over string }{{"control-over-ws", ""}, {"over-sub", "/sub"}} {
		t.Run(c.name, func(t *testing.T) {
			base := visibleWorkspace(t)
			ws := base + "/ws"
			mkfiles(t, ws, map[string]string{"sub/mvn/jvm.config": "-Xmx1g\n", "pom.xml": "<project/>\n"})
			if err := os.Symlink("sub/mvn", ws+"/.mvn"); err != nil {
				t.Fatal(err)
			}
			r := sh(t, snapshotFor(t, domain.ModeAutoAcceptEdits, ws+c.over, machine().Kernel),
				"printf -- '"+attack201JVMConfig+"' > "+ws+"/sub/mvn/jvm.config; echo done")
			t.Logf("command over ws%s: %q set aside %v", c.over, r.Stderr, quarantined(r))
			if got := hostReads(ws, ".mvn/jvm.config"); got == attack201JVMConfig {
				t.Errorf("a command over ws%s wrote the file the person's ws/.mvn/jvm.config is (ws/.mvn -> sub/mvn); kept: mvn in ws reads %q", c.over, got)
			}
		})
	}
}
