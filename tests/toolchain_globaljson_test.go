package tests

import (
	"strconv"
	"testing"
)

// TestToolchainGlobalJSONAndOtherCases: .NET's global.json (sdk.paths:
// the dotnet host takes its SDK, and so runs the program, from a directory
// it names; the host reads the nearest one walking up from the cwd), at the
// root and below it, is refused to a file tool as .tool-versions is; so are
// the other launcher and toolchain files in another letter case (one file
// on a case-insensitive file system), Maven's jvm.config below a .mvn
// spelt otherwise, and Maven's .mvn/maven.config (its options for every
// mvn: -Dmaven.ext.class.path=FILE loads the agent's jar as an extension). Controls: TestToolchainGlobalJSONAndOtherCasesControl.
func TestToolchainGlobalJSONAndOtherCases(t *testing.T) {
	t.Parallel()
	s := editsTurn(t, "gj", "sub")
	for i, p := range []string{"global.json", "sub/global.json", "sub/deeper/global.json", "GLOBAL.JSON", "sub/Global.Json",
		".YARNRC", "sub/.Yarnrc.yml", "Rust-Toolchain.toml", "sub/.MVN/JVM.config", ".mvn/maven.config", "sub/deeper/.mvn/maven.config", ".rprofile", "sub/.RPROFILE"} {
		d := s.decide("gj", "w"+strconv.Itoa(i), "apply_patch", attack136AddFile(p, `{"sdk": {"paths": ["/tmp/evil-sdk"]}}`))
		if d.Decision != "deny" || d.Refusal != "write_requires_writable_root" {
			t.Errorf("a file tool's write of %s: %s/%s/%s, want deny/write_requires_writable_root", p, d.Decision, d.Reason, d.Refusal)
		}
	}
}

// TestToolchainGlobalJSONAndOtherCasesControl: files beside them that
// name no program are written: .NET's appsettings.json and a project's
// global.json.bak, Maven's .mvn/maven.config's neighbour README, a
// jvm.config outside a .mvn.
func TestToolchainGlobalJSONAndOtherCasesControl(t *testing.T) {
	t.Parallel()
	s := editsTurn(t, "gjc", "sub")
	for i, p := range []string{"appsettings.json", "sub/appsettings.json", "sub/global.json.bak", "sub/.mvn/README", "sub/jvm.config", "sub/my.yarnrc"} {
		if d := s.decide("gjc", "ok"+strconv.Itoa(i), "apply_patch", attack136AddFile(p, "{}")); d.Decision != "allow" {
			t.Errorf("control: a write of %s: %+v, want allow", p, d)
		}
	}
}
