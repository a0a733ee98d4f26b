package sandbox

import (
	"testing"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"turnstile/domain"
)

// kernelCasefold models the kernel's utf8 casefold (fs/unicode's
// utf8nfdicf, used by ext4, f2fs and tmpfs casefold directories): NFD,
// then the C+F case folding of CaseFolding.txt ("Use the C+F casefold" in
// mkutf8data.c): full folding, so U+FB06 (the "st" ligature) is "st" and
// U+FB01 ("fi") is "fi". Two names with the same fold are one entry.
func kernelCasefold(s string) string {
	return cases.Fold().String(norm.NFD.String(s))
}

// TestAttack139_FullCaseFoldProtectedItemWritable: review 136's fix
// refuses a file tool's write on a protected item spelt in another case
// (protectedInAnyCase, agentSettingsRefusal, anyDepthItem), comparing with
// strings.EqualFold: Unicode's simple folding. A case-insensitive ext4,
// f2fs or tmpfs directory compares names by full folding: "ruﬆ-toolchain"
// (U+FB06) and ".Rproﬁle" (U+FB01) are rust-toolchain and .Rprofile
// there, and a write decision on them is allowed: the file tool (outside
// the kernel sandbox) rewrites rustup's toolchain file (a toolchain path:
// every cargo and rustc runs its bin) or R's profile, at the root and below
// it, and Maven's .mvn/jvm.config, pre-commit's config, a login shell's
// .bash_profile and git's global config dir.
func TestAttack139_FullCaseFoldProtectedItemWritable(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"rust-toolchain": "[toolchain]\nchannel = \"stable\"\n", "README.md": "r\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	for _, c := range []struct{ spelt, item string }{
		{"ruﬆ-toolchain", "rust-toolchain"},
		{"ruﬆ-toolchain.toml", "rust-toolchain.toml"},
		{".Rproﬁle", ".Rprofile"},
		{".mvn/jvm.conﬁg", ".mvn/jvm.config"},
		{".pre-commit-conﬁg.yaml", ".pre-commit-config.yaml"},
		{".bash_proﬁle", ".bash_profile"},
		{".conﬁg/git/config", ".config/git/config"},
		{"sub/ruﬆ-toolchain", "sub/rust-toolchain"},
		{"sub/.Rproﬁle", "sub/.Rprofile"},
		{"sub/.mvn/jvm.conﬁg", "sub/.mvn/jvm.config"},
	} {
		if kernelCasefold(c.spelt) != kernelCasefold(c.item) {
			t.Fatalf("setup: %q and %q are not one name under the kernel's casefold", c.spelt, c.item)
		}
		if _, err := (DecisionChecker{}).ResolveFile(s, c.spelt, domain.AccessWrite, false); err == nil {
			t.Errorf("ESCAPED: a write decision on %s was allowed: on a casefold directory it is %s", c.spelt, c.item)
		}
	}
}

// TestAttack139_FullCaseFoldProtectedItemWritableControl: the same items
// in another case of simple folding are refused (review 136's fix), and an
// ordinary name with the ligature is written.
func TestAttack139_FullCaseFoldProtectedItemWritableControl(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"rust-toolchain": "[toolchain]\nchannel = \"stable\"\n", "README.md": "r\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)
	for _, p := range []string{"RUST-TOOLCHAIN", ".RPROFILE", ".mvn/JVM.CONFIG", ".PRE-COMMIT-CONFIG.YAML", ".BASH_PROFILE", "sub/Rust-Toolchain", "sub/.rprofile", "sub/.MVN/jvm.config"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, p, domain.AccessWrite, false); err == nil {
			t.Errorf("control: a write decision on %s was allowed", p)
		}
	}
	for _, p := range []string{"ruﬆ-notes.txt", "sub/proﬁle.md", "README.MD"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, p, domain.AccessWrite, false); err != nil {
			t.Errorf("control: a write decision on %s: %v", p, err)
		}
	}
}

// TestAttack139_FullCaseFoldProfileDenyReadable: a profile's deny matched
// in any case (domain.ResolvePathRules' matchFold: strings.ToLower) misses
// the full fold: under "**/*.tfstate" = deny, a file tool's read of
// infra/prod.tfﬆate (U+FB06) is allowed; on a casefold directory it opens
// infra/prod.tfstate, Terraform's state with its secrets, which the server
// reads and returns (outside the kernel's mask).
func TestAttack139_FullCaseFoldProfileDenyReadable(t *testing.T) {
	ws := tempWorkspace(t)
	// On a casefold directory these spellings are one file,
	// infra/prod.tfstate; here (case-sensitive) each is made as the entry
	// the decision's lookups find.
	mkfiles(t, ws, map[string]string{"infra/main.tf": "x\n", "infra/prod.tfﬆate": "{\"secret\": \"sk-state\"}\n", "infra/prod.TFﬆATE": "{\"secret\": \"sk-state\"}\n"})
	s := profileSnapshot(t, ws, map[string]domain.Access{"**/*.tfstate": domain.AccessDeny, ws + "/secrets": domain.AccessDeny})
	for _, c := range []struct{ spelt, item string }{
		{"infra/prod.tfﬆate", "infra/prod.tfstate"},
		{"infra/prod.TFﬆATE", "infra/prod.tfstate"},
	} {
		if kernelCasefold(c.spelt) != kernelCasefold(c.item) {
			t.Fatalf("setup: %q and %q are not one name under the kernel's casefold", c.spelt, c.item)
		}
		if _, err := (DecisionChecker{}).ResolveFile(&s, c.spelt, domain.AccessRead, false); err == nil {
			t.Errorf("ESCAPED: a read decision on %s was allowed under **/*.tfstate = deny: on a casefold directory it is %s", c.spelt, c.item)
		}
	}
}

// TestAttack139_FullCaseFoldProfileDenyReadableControl: the honest other
// case is denied (review 136's fold), and another file is read.
func TestAttack139_FullCaseFoldProfileDenyReadableControl(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"infra/main.tf": "x\n", "infra/prod.TFSTATE": "{}\n", "infra/prod.tfstate": "{}\n", "SECRETS/key": "k\n"})
	s := profileSnapshot(t, ws, map[string]domain.Access{"**/*.tfstate": domain.AccessDeny, ws + "/secrets": domain.AccessDeny})
	for _, p := range []string{"infra/prod.TFSTATE", "infra/prod.tfstate", "SECRETS/key"} {
		if _, err := (DecisionChecker{}).ResolveFile(&s, p, domain.AccessRead, false); err == nil {
			t.Errorf("control: a read decision on %s was allowed", p)
		}
	}
	if _, err := (DecisionChecker{}).ResolveFile(&s, "infra/main.tf", domain.AccessRead, false); err != nil {
		t.Errorf("control: a read decision on infra/main.tf: %v", err)
	}
}
