package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack167EnvrcCdThenBareNames (review 167): review 166's fix tracks
// cd in the line reader (launcherparse.go envrcRefs) only; the names only
// the shell-syntax reader finds (envrcbare.go envrcBareRefs: a loop's
// missing bare name a shell or source runs) are still taken from the
// .envrc's directory (readLauncherRefs: d.launcherRef(base, ref) for
// bare.run). A nested .envrc that cds to the directory above and then runs
// `bash setup.sh` (no setup.sh there yet) lets a command create
// ../setup.sh, which stays and runs at the person's next cd into sub/.
// Control: the same line without the cd (in own/.envrc) has own/setup.sh
// set aside.
func TestAttack167EnvrcCdThenBareNames(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		"own/.envrc":            "bash setup.sh\n",
		"a/sub/.envrc":          "cd ..\nbash setup.sh\n",
		"a/sub/placeholder.txt": "x\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	r := sh(t, s, "for n in own/setup.sh a/setup.sh notes.txt; do echo 'touch /tmp/pwned' > $n; done; echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	if !exists(f.ws + "/notes.txt") {
		t.Fatalf("control: notes.txt was not written")
	}
	for _, n := range []string{"own/setup.sh"} {
		if exists(f.ws + "/" + n) {
			t.Fatalf("control: %s, which own/.envrc runs, was made by the command and stayed (%+v)", n, r.Quarantined)
		}
	}
	for _, n := range []string{"a/setup.sh"} {
		if b, err := os.ReadFile(f.ws + "/" + n); err == nil && strings.Contains(string(b), "pwned") {
			t.Errorf("%s, which a/sub/.envrc runs after its cd .., was made by the command and stayed: %q", n, b)
		}
	}
}
