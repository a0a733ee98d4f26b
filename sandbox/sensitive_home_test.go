package sandbox

import (
	"os"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestSensitiveHomePatternsMasked: the built-in credential stores of every
// home under /home are patterns (/home/*/.ssh, /home/*/.netrc, …). With
// such a home as the root, a command in supervised or auto_accept_edits
// mode cannot read them: each path that matches a pattern when the command
// starts is masked like a plain sensitive path (an attack review read
// .ssh/id_rsa, .netrc and .aws/credentials this way). The control: a file
// next to them reads fine.
func TestSensitiveHomePatternsMasked(t *testing.T) {
	requireKernel(t, true)
	if err := os.MkdirAll("/home", 0o755); err != nil {
		t.Fatal(err)
	}
	home, err := os.MkdirTemp("/home", "turnstile-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	os.Chmod(home, 0o755)
	mkfiles(t, home, map[string]string{".ssh/id_rsa": "SSHSECRET\n", ".netrc": "machine h password NETRCSECRET\n",
		".aws/credentials": "AWSSECRET\n", ".config/gcloud/adc.json": "GCLOUDSECRET\n", "notes.txt": "visible\n"})
	for _, mode := range []domain.Mode{domain.ModeSupervised, domain.ModeAutoAcceptEdits} {
		s := snapshotFor(t, mode, home, machine().Kernel)
		r := sh(t, s, "cat notes.txt; for f in .ssh/id_rsa .netrc .aws/credentials .config/gcloud/adc.json; do cat $f; done 2>&1; ls -a .ssh 2>&1; true")
		out := string(r.Stdout)
		if !strings.Contains(out, "visible") {
			t.Fatalf("%s: the control file was not read (%d): %s %s", mode, r.ExitCode, out, r.Stderr)
		}
		for _, secret := range []string{"SSHSECRET", "NETRCSECRET", "AWSSECRET", "GCLOUDSECRET", "id_rsa\n"} {
			if strings.Contains(out, secret) {
				t.Errorf("%s: the command read %q:\n%s", mode, secret, out)
			}
		}
	}
}
