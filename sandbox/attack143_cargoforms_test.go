package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// cargo143: Cargo config forms (doc.rust-lang.org/cargo/reference/config.html)
// that name a program for the person's cargo to run, which
// cargoConfigRefs (launcherparse.go) does not read: .cargo/config.toml is
// read-only to the agent, the program it names is not.
var cargo143 = []struct{ name, data, target, why string }{
	// The built-in provider cargo:token-from-stdout runs the command that
	// follows it (cargo publish, login, yank, owner, and every fetch from
	// a registry that requires authentication). cargoConfigRefs takes the
	// first field of the provider's command line, "cargo:token-from-stdout",
	// which holds no '/' and is dropped.
	{"tokenFromStdout", "[registry]\nglobal-credential-providers = [\"cargo:token-from-stdout tools/cred.sh\"]\n", "tools/cred.sh", "cargo runs it for a token"},
	{"registryTokenFromStdout", "[registry]\ncredential-provider = \"cargo:token-from-stdout tools/cred.sh\"\n", "tools/cred.sh", "cargo runs it for a token"},
	// [credential-alias]: a provider named by an alias; the alias's
	// program is not read (the provider "mine" holds no '/').
	{"credentialAlias", "[credential-alias]\nmine = [\"tools/cred2.sh\", \"--x\"]\n[registry]\nglobal-credential-providers = [\"mine\"]\n", "tools/cred2.sh", "cargo runs the alias's program for a token"},
	// doc.browser: the program `cargo doc --open` runs.
	{"docBrowser", "[doc]\nbrowser = \"tools/browser.sh\"\n", "tools/browser.sh", "cargo doc --open runs it"},
}

// TestAttack143_CargoFormsTargetWritable: the program each form above
// names is written by a file tool and by a command, while the
// .cargo/config.toml naming it is read-only.
func TestAttack143_CargoFormsTargetWritable(t *testing.T) {
	for _, c := range cargo143 {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{".cargo/config.toml": c.data, c.target: "#!/bin/sh\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, ".cargo/config.toml", domain.AccessWrite, false); err == nil {
				t.Fatalf("premise: .cargo/config.toml itself is writable")
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("ESCAPED (decision): a write of %s, which the protected .cargo/config.toml names (%s), was allowed", c.target, c.why)
			}
			r := sh(t, s, "echo 'touch /tmp/pwned143' >> "+c.target+" && echo wrote")
			if strings.Contains(string(r.Stdout), "wrote") {
				t.Errorf("ESCAPED (command): a command wrote %s, which the protected .cargo/config.toml names (%s)", c.target, c.why)
			}
		})
	}
}

// TestAttack143_CargoFormsTargetWritableControl: the forms cargoConfigRefs
// reads (a credential provider given by its path, a rustc-wrapper) keep
// their program read-only; an ordinary file beside it is written.
func TestAttack143_CargoFormsTargetWritableControl(t *testing.T) {
	for _, c := range []struct{ name, data, target string }{
		{"providerPath", "[registry]\nglobal-credential-providers = [\"tools/cred.sh --x\"]\n", "tools/cred.sh"},
		{"rustcWrapper", "[build]\nrustc-wrapper = \"tools/browser.sh\"\n", "tools/browser.sh"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newPlantFixture(t)
			mkfiles(t, f.ws, map[string]string{".cargo/config.toml": c.data, c.target: "#!/bin/sh\n", "tools/other.txt": "o\n"})
			s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
			if _, err := (DecisionChecker{}).ResolveFile(s, c.target, domain.AccessWrite, false); err == nil {
				t.Errorf("control: a write of %s, named by .cargo/config.toml, was allowed", c.target)
			}
			if _, err := (DecisionChecker{}).ResolveFile(s, "tools/other.txt", domain.AccessWrite, false); err != nil {
				t.Errorf("control: a write of tools/other.txt: %v", err)
			}
			r := sh(t, s, "echo 'touch /tmp/pwned143' >> "+c.target+" && echo wrote")
			if strings.Contains(string(r.Stdout), "wrote") {
				t.Errorf("control: a command wrote %s, named by .cargo/config.toml", c.target)
			}
			r = sh(t, s, "echo x >> tools/other.txt && echo wrote")
			if !strings.Contains(string(r.Stdout), "wrote") {
				t.Errorf("control: a command could not write tools/other.txt: %s", r.Stderr)
			}
		})
	}
}
