package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// devProfileRuntime starts a server whose constraints allow only the
// profile "dev" that profileTOML writes, and roots inside bound (plus any
// further constraint lines), and returns the runtime's client of workspace
// "ws": the agent's credential in the roots reviews.
func devProfileRuntime(t *testing.T, profileTOML, bound string, constraints ...string) *Server {
	t.Helper()
	dir := t.TempDir()
	profiles, cons := filepath.Join(dir, "profiles.toml"), filepath.Join(dir, "constraints.toml")
	lines := append([]string{`allowed_profiles = ["dev"]`, `allowed_roots = ["` + bound + `"]`}, constraints...)
	if err := os.WriteFile(profiles, []byte(profileTOML), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cons, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := StartServer(t, "", "--profiles", profiles, "--constraints", cons)
	return roAs(s, roCreate(t, s, "agent", "runtime", "ws"))
}

// makeFiles writes body to each file, making its directories.
func makeFiles(t *testing.T, body string, files ...string) {
	t.Helper()
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
