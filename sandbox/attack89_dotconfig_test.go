package sandbox

import (
	"testing"

	"turnstile/domain"
)

// TestAttack89_DotConfigFalseDeny (eighty-ninth review, false deny):
// `dotnet new tool-manifest` writes .config/dotnet-tools.json at the
// project's top, the one place the .NET SDK looks for a local tool
// manifest. In a workspace without a .config, the check after the command
// takes .config for the first missing component of the protected list's
// .config items (.config/git, .config/mise.toml, .config/lefthook.yml …)
// and sets the whole directory aside ("a protected path the command
// created"), though none of those items was made: the manifest is gone
// after every such command. Control: the same manifest in an existing
// .config stays (and a .github holding a workflow alone stays).
func TestAttack89_DotConfigFalseDeny(t *testing.T) {
	f := requireKernel(t, true)
	// Control: an existing .config.
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{".config/other.json": "{}\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r := sh(t, s, "echo '{\"version\":1,\"isRoot\":true,\"tools\":{}}' > .config/dotnet-tools.json && mkdir -p .github/workflows && echo 'on: push' > .github/workflows/ci.yml")
	if r.ExitCode != 0 || !exists(ws+"/.config/dotnet-tools.json") || !exists(ws+"/.github/workflows/ci.yml") {
		t.Fatalf("control: the manifest in an existing .config (or the workflow) did not stay: %d %s %v", r.ExitCode, r.Stderr, r.Quarantined)
	}

	ws = tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"src/app.cs": "x\n"})
	s = snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	r = sh(t, s, "mkdir .config && echo '{\"version\":1,\"isRoot\":true,\"tools\":{}}' > .config/dotnet-tools.json")
	if r.ExitCode != 0 {
		t.Fatalf("the command failed: %d %s", r.ExitCode, r.Stderr)
	}
	if !exists(ws + "/.config/dotnet-tools.json") {
		t.Errorf("an honest .NET tool manifest (.config/dotnet-tools.json, what dotnet new tool-manifest writes) was set aside: %v", r.Quarantined)
	}
}
