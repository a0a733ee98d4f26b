package sandbox

import (
	"os"
	"strings"
	"testing"
)

// TestAttackPlantReadLeak: the check follows a planted commondir to any
// directory on the host (it runs in the server, as the server's user) and
// puts the first line of that directory's "config" it cannot read as a
// key into Quarantine.Reason (80 bytes), or the first hook's name: a
// command reads a line of a file it is not allowed to read (here a file
// outside its view; in life ~/.ssh/config, ~/.kube/config and the like).
func TestAttackPlantReadLeak(t *testing.T) {
	f := newPlantFixture(t)
	secret := t.TempDir() + "/private"
	if err := os.MkdirAll(secret, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret+"/config", []byte("token=ghp_S3CRETS3CRETS3CRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := sh(t, f.s, "cat "+secret+"/config; mkdir -p x/wt && echo 'ref: refs/heads/main' > x/wt/HEAD && echo "+secret+" > x/wt/commondir")
	attackReport(t, "command", r)
	if strings.Contains(string(r.Stdout), "S3CRET") {
		t.Fatal("the sandbox could read the file directly: no leak to show")
	}
	for _, q := range r.Quarantined {
		if strings.Contains(q.Reason, "S3CRET") {
			t.Fatalf("LEAK: the check put the content of a file outside the sandbox's view into the result: %q", q.Reason)
		}
	}
}
