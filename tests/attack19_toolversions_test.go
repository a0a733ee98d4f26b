package tests

import (
	"strconv"
	"testing"
)

// TestAttack19NestedToolVersionsWritable (nineteenth attack review): asdf's
// shims read .tool-versions in the working directory and each directory
// above it, the nearest first, each time the person runs a tool they
// manage, and a version written "path:DIR" runs DIR/bin's program
// (TestAttack16ToolVersionsPath). The sixteenth review protected the
// root's .tool-versions only: in auto_accept_edits a file tool's write of
// sub/.tool-versions (nodejs path:/tmp/evil) is allowed without a
// question, and the person's next node in sub/ runs the agent's program,
// outside every sandbox. Controls: the root's .tool-versions is refused;
// sub/.nvmrc and sub/package.json (versions only) are written.
func TestAttack19NestedToolVersionsWritable(t *testing.T) {
	t.Parallel()
	s := editsTurn(t, "tv", "sub")
	patch := func(p string) map[string]any { return addFilePatch(p, "nodejs path:/tmp/evil-node") }
	if d := s.decide("tv", "own", "apply_patch", patch(".tool-versions")); d.Decision != "deny" || d.Refusal != "write_requires_writable_root" {
		t.Fatalf("control: the root's .tool-versions: %+v", d)
	}
	for i, p := range []string{"sub/.nvmrc", "sub/package.json"} {
		if d := s.decide("tv", "ok"+strconv.Itoa(i), "apply_patch", patch(p)); d.Decision != "allow" {
			t.Fatalf("control: a write of %s: %+v", p, d)
		}
	}
	for i, p := range []string{"sub/.tool-versions", "sub/deeper/.tool-versions"} {
		if d := s.decide("tv", "w"+strconv.Itoa(i), "apply_patch", patch(p)); d.Decision != "deny" || d.Refusal != "write_requires_writable_root" {
			t.Errorf("a write of %s: %s/%s/%s, want deny/sandbox_denied/write_requires_writable_root", p, d.Decision, d.Reason, d.Refusal)
		}
	}
}
