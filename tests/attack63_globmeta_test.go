package tests

import (
	"os"
	"strings"
	"testing"
)

const globMetaProfiles63 = `
[permissions.dev]
extends = ":workspace"
[permissions.dev.filesystem.":workspace_roots"]
"." = "write"
"vault/*.key" = "deny"
[permissions.dev.approvals]
policy = "full_access"

[permissions.docs]
extends = ":workspace"
[permissions.docs.filesystem.":workspace_roots"]
"." = "write"
"%s/*.key" = "deny"
[permissions.docs.approvals]
policy = "full_access"
`

// TestAttack63GlobCopyUnescapedTarget (medium): a glob deny written
// through a link (`"vault/*.key" = "deny"`, vault -> `.vault[1]`) is
// bound where the link led by a copy whose pattern is the link's target
// concatenated, unescaped, into the glob (domain/carvelinks.go
// BindCarveLinks: c.Pattern = CleanPath(t+"/"+TrimPrefix(pattern, p)),
// Glob kept). A target whose name holds glob syntax (`[1]`, `*`, `?`,
// `\`) makes the copy a different pattern: `/ws/.vault[1]/*.key` is a
// character class matching `/ws/.vault1/x.key`, never
// `/ws/.vault[1]/db.key`. So the secret the profile denies through the
// link is read and written by turn a's read_file and commands — with the
// link in place, and after another turn (profile docs, denying the same
// files by their own, escaped, path) removes it. (The same unescaped
// concatenation predates the copies: the parent commit reads it too; the
// copies were the place to bind it and repeat the mistake. CarveLinksOf
// then reads the copy's literal prefix back as `/ws` for such a target.)
//
// Suggested fix: escape the resolved target (and any path spliced into a
// glob) with the glob escaper before concatenating — e.g. a
// domain.EscapeGlob(t) — and read it back unescaped in CarveLinksOf; add a
// test with a target named `a[1]`, `a*` and `a\b`.
//
// Controls: the same profiles with the target named `.vault-data` deny
// the secret to turn a; turn b (docs, the escaped own path) is denied.
func TestAttack63GlobCopyUnescapedTarget(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root for the kernel sandbox")
	}
	denied := func(v vaultSetup, tn, id string) (bool, bool) {
		d := v.runtime.decide(tn, id, "read_file", map[string]any{"path": v.secret})
		out := v.exec(tn, id+"x", "cat '"+v.secret+"'")
		return d.Decision == "deny", !strings.Contains(out, "s3cret")
	}
	// Control: an ordinary target name.
	c := linkSetup63(t, ".vault-data", "vault", strings.Replace(globMetaProfiles63, "%s", ".vault-data", 1), [2]string{"a", "dev"})
	if s, k := denied(c, "a", "c0"); !s || !k {
		t.Fatalf("control: turn a reads the secret behind an ordinary link (server denies %v, kernel denies %v)", s, k)
	}
	v := linkSetup63(t, ".vault[1]", "vault", strings.Replace(globMetaProfiles63, "%s", `.vault\\[1\\]`, 1), [2]string{"a", "dev"}, [2]string{"b", "docs"})
	if s, k := denied(v, "b", "c1"); !s || !k {
		t.Fatalf("control: turn b reads the secret it denies by its own path (server denies %v, kernel denies %v)", s, k)
	}
	// The attack: turn a, link in place.
	if s, k := denied(v, "a", "r0"); !s || !k {
		t.Errorf("turn a reads %s, denied through the link vault (server denies %v, kernel denies %v)", v.secret, s, k)
	}
	// And after turn b removed the link (the copy is what binds it).
	v.exec("b", "x0", "rm vault")
	if s, k := denied(v, "a", "r1"); !s || !k {
		t.Errorf("after turn b removed vault, turn a reads %s (server denies %v, kernel denies %v)", v.secret, s, k)
	}
}
