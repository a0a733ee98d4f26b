package tests

import (
	"strconv"
	"strings"
	"testing"
)

// Review 136 (medium): the version-manager and launcher files a host program looks up in
// the directory a person works in and in each directory above it, and
// that make the person's next invocation of a tool run a program the file
// names, are protected only for asdf's .tool-versions
// (TestAttack16ToolVersionsPath, TestAttack19NestedToolVersionsWritable).
// Others of the same kind are not, at the root or below it:
//
//   - yarn's .yarnrc (yarn-path "…") and .yarnrc.yml (yarnPath: …): the
//     person's globally installed yarn reads them in the cwd and its
//     parents and hands every command, "yarn --version" included, to
//     node running the named JavaScript file. A file tool writes the file
//     and the script (no execute bit needed: node runs it).
//   - rustup's rust-toolchain.toml (and rust-toolchain): found by walking
//     up from the cwd; a [toolchain] path = "DIR" makes every rustup proxy
//     there (cargo, rustc, rustfmt, "cargo --version") run DIR/bin's
//     program, exactly as asdf's "path:DIR" version does.
//   - Maven's .mvn/jvm.config: bin/mvn finds the nearest directory above
//     the cwd holding .mvn and puts the file's lines in the JVM's options
//     for every mvn, "mvn -v" included ("-Xmx2m
//     -XX:OnOutOfMemoryError=CMD": the JVM runs CMD with sh -c when its
//     tiny heap runs out; no file of the agent's to execute).
//   - R's .Rprofile: R and Rscript source the one in the directory they
//     start in before the home directory's (?Startup), and RStudio starts
//     a project's session in its root: R code run at the person's next R
//     there, as a .bashrc is at a root that is a home.
//
// In auto_accept_edits a file tool's write of each is allowed without a
// question, so the person's next yarn, cargo, mvn or R in the workspace
// runs the agent's program outside every sandbox.
//
// Controls: .tool-versions, at the root and below it, is refused
// (write_requires_writable_root), and sub/package.json is written.
func TestAttack136_ToolchainFilesWritable(t *testing.T) {
	t.Parallel()
	s := editsTurn(t, "tc", "sub")
	files := map[string][]string{
		".yarnrc":                   {`yarn-path "./evil.js"`},
		".yarnrc.yml":               {"yarnPath: ./evil.cjs"},
		"rust-toolchain.toml":       {"[toolchain]", `path = "/tmp/evil-toolchain"`},
		"sub/.yarnrc":               {`yarn-path "../evil.js"`},
		"sub/.yarnrc.yml":           {"yarnPath: ../evil.cjs"},
		"sub/rust-toolchain.toml":   {"[toolchain]", `path = "/tmp/evil-toolchain"`},
		"sub/deeper/.yarnrc.yml":    {"yarnPath: ../../evil.cjs"},
		"sub/deeper/rust-toolchain": {"[toolchain]", `path = "/tmp/evil-toolchain"`},
		".mvn/jvm.config":           {"-Xmx2m -XX:OnOutOfMemoryError=id>/tmp/pwned"},
		"sub/.mvn/jvm.config":       {"-Xmx2m -XX:OnOutOfMemoryError=id>/tmp/pwned"},
		".Rprofile":                 {`system("id>/tmp/pwned")`},
	}
	i := 0
	for p, lines := range files {
		i++
		d := s.decide("tc", "w"+strconv.Itoa(i), "apply_patch", attack136AddFile(p, lines...))
		if d.Decision != "deny" {
			t.Errorf("a file tool's write of %s (read by the person's next yarn, cargo, mvn or R there): %s/%s/%s, want deny, as .tool-versions is",
				p, d.Decision, d.Reason, d.Refusal)
		}
	}
}

// TestAttack136_ToolchainFilesWritableControl: asdf's .tool-versions, the
// same kind of file, is refused at the root and below it; an ordinary file
// naming versions only (package.json) is written.
func TestAttack136_ToolchainFilesWritableControl(t *testing.T) {
	t.Parallel()
	s := editsTurn(t, "tcc", "sub")
	for i, p := range []string{".tool-versions", "sub/.tool-versions", "sub/deeper/.tool-versions"} {
		d := s.decide("tcc", "tv"+strconv.Itoa(i), "apply_patch", attack136AddFile(p, "nodejs path:/tmp/evil-node"))
		if d.Decision != "deny" || d.Refusal != "write_requires_writable_root" {
			t.Errorf("control: a write of %s: %s/%s/%s, want deny/write_requires_writable_root", p, d.Decision, d.Reason, d.Refusal)
		}
	}
	for i, p := range []string{"sub/package.json", "package.json", "sub/deeper/README.md"} {
		if d := s.decide("tcc", "ok"+strconv.Itoa(i), "apply_patch", attack136AddFile(p, "{}")); d.Decision != "allow" {
			t.Errorf("control: a write of %s: %+v, want allow", p, d)
		}
	}
}

// attack136AddFile is apply_patch's arguments adding file p with lines.
func attack136AddFile(p string, lines ...string) map[string]any {
	return map[string]any{"patch": "*** Begin Patch\n*** Add File: " + p + "\n+" + strings.Join(lines, "\n+") + "\n*** End Patch"}
}
