package domain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttack117_EnvValueHeaderProgram: an exec's environment value is
// checked as one quoted word (envdetail: inertHidden(`"`+v+`"`, …)), and a
// value of a header's shape quoted whole ("Authorization: Bearer …", the
// quote at 0) keeps its hidden '/' as a header's credential. But a value
// may be a program a tool runs without a shell, by a path: cargo runs
// $RUSTC (first as `$RUSTC -vV`), and RUSTC is no programChooser name (no
// _WRAPPER, _COMMAND … suffix). RUSTC="Authorization: Bearer tools/…"
// runs the agent's file "Authorization: Bearer tools/…" (a directory the
// agent made), and the request reads Environment: RUSTC="Authorization:
// [redacted] [redacted]": the program that runs is hidden.
// Control: RUSTC=tools/… is shown; an honest header credential (with '/'
// and '+') in an environment value stays hidden.
func TestAttack117_EnvValueHeaderProgram(t *testing.T) {
	val := "Authorization: Bearer " + attack42Prog
	argv := []string{"cargo", "build", "--offline"}
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		t.Skip("no cargo")
	}
	dir := t.TempDir()
	for _, d := range []string{"src", filepath.Dir(filepath.Join("Authorization: Bearer " + attack42Prog))} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mark := filepath.Join(dir, "AGENT-CODE-RAN")
	files := map[string]string{
		"Cargo.toml":  "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/main.rs": "fn main() {}\n",
		val:           "#!/bin/sh\ntouch " + mark + "\nexit 1\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := exec.Command(cargo, argv[1:]...)
	c.Dir, c.Env = dir, append(os.Environ(), "RUSTC="+val, "CARGO_TARGET_DIR="+filepath.Join(dir, "target"))
	_, _ = c.CombinedOutput()
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("premise: cargo does not run %q from RUSTC", val)
	}
	t.Run("control", func(t *testing.T) {
		if s := shownExec(t, map[string]any{"argv": argv, "env": map[string]any{"RUSTC": attack42Prog}}); !strings.Contains(s, attack42Prog) {
			t.Fatalf("control: RUSTC=%s is hidden:\n%s", attack42Prog, s)
		}
		const cred = "dXNlcjpwYXNz/d29yZA+ZXhhbXBsZQ=="
		s := shownExec(t, map[string]any{"argv": []string{"node", "client.js"}, "env": map[string]any{"API_HEADER": "Authorization: Bearer " + cred}})
		if strings.Contains(s, cred) {
			t.Fatalf("control: an honest header credential in the environment is shown:\n%s", s)
		}
	})
	if s := shownExec(t, map[string]any{"argv": argv, "env": map[string]any{"RUSTC": val}}); !strings.Contains(s, attack42Prog) {
		t.Errorf("cargo runs the agent's %q from RUSTC, and the approval request hides it:\n%s", val, s)
	}
}

// TestAttack117_EnvValueAssignedURLProgram: the same through the assigned
// URL exemption: the value `&A=https://h/?token=tools/…` (checked as
// `"&A=https://h/?token=` + hidden, where assignedURL takes the '&' for a
// separator) keeps its hidden '/', and cargo runs it as RUSTC, a path the
// agent made ("&A=https:/h/?token=tools/…"). The request reads
// RUSTC="&A=https://h/?token=[redacted]".
// Control: without the '&' the value is shown whole.
func TestAttack117_EnvValueAssignedURLProgram(t *testing.T) {
	val := "&A=https://h/?token=" + attack42Prog
	file := "&A=https:/h/?token=" + attack42Prog
	argv := []string{"cargo", "build", "--offline"}
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		t.Skip("no cargo")
	}
	dir := t.TempDir()
	for _, d := range []string{"src", filepath.Dir(file)} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mark := filepath.Join(dir, "AGENT-CODE-RAN")
	files := map[string]string{
		"Cargo.toml":  "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/main.rs": "fn main() {}\n",
		file:          "#!/bin/sh\ntouch " + mark + "\nexit 1\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := exec.Command(cargo, argv[1:]...)
	c.Dir, c.Env = dir, append(os.Environ(), "RUSTC="+val, "CARGO_TARGET_DIR="+filepath.Join(dir, "target"))
	_, _ = c.CombinedOutput()
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("premise: cargo does not run %q from RUSTC", file)
	}
	t.Run("control", func(t *testing.T) {
		v := "A=https://h/?token=" + attack42Prog
		if s := shownExec(t, map[string]any{"argv": argv, "env": map[string]any{"RUSTC": v}}); !strings.Contains(s, attack42Prog) {
			t.Fatalf("control: RUSTC=%s is hidden:\n%s", v, s)
		}
	})
	if s := shownExec(t, map[string]any{"argv": argv, "env": map[string]any{"RUSTC": val}}); !strings.Contains(s, attack42Prog) {
		t.Errorf("cargo runs the agent's %q from RUSTC, and the approval request hides it:\n%s", file, s)
	}
}
