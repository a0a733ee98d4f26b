package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack140_CargoConfigEnvRelative: Cargo's config [env] table sets
// variables for every rustc and build script cargo starts, and
// { value = "...", relative = true } makes the value a path relative to
// the directory holding .cargo. "LD_PRELOAD = { value =
// \"tools/preload.so\", relative = true }" has every rustc of every cargo
// build load the library. cargoConfigRefs reads no [env], and
// tools/preload.so stays writable to a file tool. Control (TestAttack140_CargoConfigEnvRelativeControl): the
// same path as build.rustc-wrapper is refused.
func TestAttack140_CargoConfigEnvRelative(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".cargo/config.toml": "[env]\nLD_PRELOAD = { value = \"tools/preload.so\", relative = true }\n",
		"tools/preload.so":   "ELF\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, ".cargo/config.toml", domain.AccessWrite, false); err == nil {
		t.Fatalf("premise: .cargo/config.toml itself is writable")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, "tools/preload.so", domain.AccessWrite, false); err == nil {
		t.Errorf("ESCAPED (decision): a write of tools/preload.so, which .cargo/config.toml's [env] has every rustc preload, was allowed")
	}
}

func TestAttack140_CargoConfigEnvRelativeControl(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{
		".cargo/config.toml": "[build]\nrustc-wrapper = \"tools/preload.so\"\n",
		"tools/preload.so":   "ELF\n", "tools/other": "o\n",
	})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, "tools/preload.so", domain.AccessWrite, false); err == nil {
		t.Errorf("control: a write of tools/preload.so, the rustc-wrapper, was allowed")
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, "tools/other", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a write of tools/other: %v", err)
	}
}
