package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestSandboxCLICommandCannotPlantTheLeanProgram: with the turnstile binary
// in the command's writable root (bin/ of a workspace) and no usable
// turnstile-sandbox next to it (none at all, or one refused for being
// writable by its group), the command can neither create nor make usable a
// turnstile-sandbox there: the next `turnstile sandbox` would exec it before
// anything is enforced (the early entry). The planted program is a copy of
// /bin/sh, which runs the file __turnstile-sandbox-cli in the next run's
// directory (its first argument) as a script writing outside any root. The
// control is the same command's write of bin/other, which works.
func TestSandboxCLICommandCannotPlantTheLeanProgram(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		mode os.FileMode // of the turnstile-sandbox next to the binary; 0: none
	}{{"missing", 0}, {"refused", 0o775}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root, outside := workspace(t), workspace(t)
			tb := copyBinaries(t, filepath.Join(root, "bin"), c.mode)
			helper := filepath.Join(root, "bin", "turnstile-sandbox")
			before, _ := os.ReadFile(helper)
			cmd := exec.Command(tb, "sandbox", "--mode", "auto_accept_edits", "--root", root, "--", "sh", "-c",
				"cat /bin/sh > bin/turnstile-sandbox 2>/dev/null && chmod 755 bin/turnstile-sandbox && echo planted; echo y > bin/other && echo wrote")
			cmd.Dir = root
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if string(out) != "wrote\n" {
				t.Errorf("stdout %q, want only the control's write", out)
			}
			after, _ := os.ReadFile(helper)
			if !bytes.Equal(before, after) || (c.mode == 0) == exists(helper) {
				t.Errorf("bin/turnstile-sandbox changed (%d bytes, was %d)", len(after), len(before))
			}
			// The next run, from a directory holding the planted
			// program's script.
			next := t.TempDir()
			marker := filepath.Join(outside, "planted-ran")
			if err := os.WriteFile(filepath.Join(next, "__turnstile-sandbox-cli"), []byte("echo ran > "+marker+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd = exec.Command(tb, "sandbox", "--mode", "auto_accept_edits", "--root", root, "--", "echo", "hi")
			cmd.Dir = next
			out, err = cmd.CombinedOutput()
			if err != nil || string(out) != "hi\n" || exists(marker) {
				t.Fatalf("next run: %v, output %q, planted program ran: %v", err, out, exists(marker))
			}
		})
	}
}
