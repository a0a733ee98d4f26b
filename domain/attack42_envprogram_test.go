package domain

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAttack42SecretNamedVariableNamesAProgram: a secret-named variable's
// value is hidden unless its name ends as a reference's does
// (refNameSuffixes: …_CREDENTIAL_PROVIDER, …_FILE, …_COMMAND) or the text
// expands it. Programs read such variables from the environment by names
// the list does not end: cargo's registry.global-credential-providers is
// CARGO_REGISTRY_GLOBAL_CREDENTIAL_PROVIDERS, a list of programs cargo
// runs when a registry needs a credential (cargo login, publish, owner…),
// and Google's client libraries read GOOGLE_APPLICATION_CREDENTIALS, the
// file whose token_uri they send a signed assertion to (or whose
// external_account credential_source names a program or a URL). A Claude
// Code Bash call
//
//	echo x | CARGO_REGISTRY_GLOBAL_CREDENTIAL_PROVIDERS=/home/dev/app/tools/prov cargo login
//
// is shown as CARGO_REGISTRY_GLOBAL_CREDENTIAL_PROVIDERS=[redacted] cargo
// login, and cargo runs the agent's program (checked with cargo and git on
// a local index; skipped where either is missing). A path-shaped value
// ('/' first) is hidden in an assignment, where readsAsPath is not asked.
//
// Controls: a real secret under such a name (a token's shape) stays
// hidden, and so does a plain value of CARGO_REGISTRY_TOKEN. The secure
// behaviour asserted: the request shows the program and the file.
func TestAttack42SecretNamedVariableNamesAProgram(t *testing.T) {
	const tok = "Zq8vLw3nR2tK9pXs"
	for _, cmd := range []string{
		"CARGO_REGISTRY_TOKEN=" + tok + " cargo publish",
		"GOOGLE_APPLICATION_CREDENTIALS=ghp_0123456789abcdefghijABCDEFGHIJ012345 ./run",
	} {
		if s := attack42ShownBash(t, cmd); strings.Contains(s, tok) || strings.Contains(s, "ghp_0123456789") {
			t.Fatalf("control: a secret is shown:\n%s", s)
		}
	}

	cargo, errC := exec.LookPath("cargo")
	git, errG := exec.LookPath("git")
	if errC == nil && errG == nil {
		dir := t.TempDir()
		idx := filepath.Join(dir, "idx")
		mark := filepath.Join(dir, "AGENT-CODE-RAN")
		prov := filepath.Join(dir, "prov")
		if err := os.MkdirAll(idx, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(idx, "config.json"), []byte(`{"dl":"http://127.0.0.1:9/dl","api":"http://127.0.0.1:9"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(prov, []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "i"}} {
			c := exec.Command(git, args...)
			c.Dir = idx
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		c := exec.CommandContext(ctx, cargo, "login", "--registry", "local")
		c.Dir = dir
		c.Stdin = strings.NewReader("x\n")
		c.Env = append(os.Environ(), "CARGO_HOME="+filepath.Join(dir, "home"),
			"CARGO_REGISTRIES_LOCAL_INDEX=file://"+idx,
			"CARGO_REGISTRY_GLOBAL_CREDENTIAL_PROVIDERS="+prov)
		_, _ = c.CombinedOutput()
		if _, err := os.Stat(mark); err != nil {
			t.Fatalf("premise: cargo did not run the provider: %v", err)
		}
	}

	for _, c := range []struct{ cmd, want string }{
		{"echo x | CARGO_REGISTRY_GLOBAL_CREDENTIAL_PROVIDERS=/home/dev/app/tools/prov cargo login", "/home/dev/app/tools/prov"},
		{"GOOGLE_APPLICATION_CREDENTIALS=/home/dev/app/.cache/gac.json terraform apply -auto-approve", "/home/dev/app/.cache/gac.json"},
	} {
		if s := attack42ShownBash(t, c.cmd); !strings.Contains(s, c.want) {
			t.Errorf("%s\nis shown without %s:\n%s", c.cmd, c.want, s)
		}
	}
}
