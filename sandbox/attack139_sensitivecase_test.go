package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"turnstile/domain"
)

// sensitiveCaseHome makes a home under /home holding the credential
// stores at the names given (relative), each with a secret.
func sensitiveCaseHome(t *testing.T, names ...string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a home directory under /home")
	}
	home, err := os.MkdirTemp("/home", "turnstile-attack139-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	if err := os.Chmod(home, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, rel := range append(names, "README.md") {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("secret-a139\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// TestAttack139_SensitiveStoreOtherCaseReadable: review 136 matched the
// protected items (read-only) and a profile's denies in any case, for the
// case-insensitive file systems it names (WSL's drvfs, vfat/exfat, an ext4
// casefold directory), but not the credential stores every snapshot denies
// (domain.SensitiveHomeNames, PathSensitive): in a turn over a home, a
// read decision on ~/.NPMRC, ~/.Docker/config.json, ~/.SSH/id_rsa,
// ~/.Git-Credentials is allowed; on such a file system each is the
// store itself, which the file tool (outside the kernel sandbox) reads and
// returns to the agent. (Made here at the other spelling, the entry a
// case-insensitive file system's lookup finds.)
func TestAttack139_SensitiveStoreOtherCaseReadable(t *testing.T) {
	other := []string{".NPMRC", ".Docker/config.json", ".SSH/id_rsa", ".Git-Credentials", ".Cargo/credentials.toml", ".AWS/credentials", ".Config/GH/hosts.yml"}
	home := sensitiveCaseHome(t, other...)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, home, machine().Kernel)
	for _, p := range other {
		if _, err := (DecisionChecker{}).ResolveFile(s, p, domain.AccessRead, false); err == nil {
			t.Errorf("ESCAPED: a read decision on ~/%s was allowed: on a case-insensitive file system it is the credential store", p)
		}
	}
}

// TestAttack139_SensitiveStoreOtherCaseReadableControl: the stores at
// their own names are denied; another file of the home is read.
func TestAttack139_SensitiveStoreOtherCaseReadableControl(t *testing.T) {
	own := []string{".npmrc", ".docker/config.json", ".ssh/id_rsa", ".git-credentials", ".cargo/credentials.toml", ".aws/credentials", ".config/gh/hosts.yml"}
	home := sensitiveCaseHome(t, own...)
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, home, machine().Kernel)
	for _, p := range own {
		if _, err := (DecisionChecker{}).ResolveFile(s, p, domain.AccessRead, false); err == nil {
			t.Errorf("control: a read decision on ~/%s was allowed", p)
		}
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, "README.md", domain.AccessRead, false); err != nil {
		t.Errorf("control: a read decision on ~/README.md: %v", err)
	}
}
