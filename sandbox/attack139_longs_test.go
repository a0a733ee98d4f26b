package sandbox

import (
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack139_GlobDenyLongS: review 136 matches a profile's glob deny in
// any case by lowering the pattern and the path (matchFold:
// strings.ToLower), a path deny by strings.EqualFold. The two differ:
// U+017F (ſ, LATIN SMALL LETTER LONG S) is already lower case, so
// ToLower keeps it, while its simple case folding (CaseFolding.txt "017F;
// C; 0073", and NTFS's upcase table: its upper case is S) is s. Under
// "**/secrets/**" = deny and "**/*.tfstate" = deny, a file tool's read of
// config/ſecrets/db.txt and infra/prod.tfſtate is allowed; on a
// case-insensitive file system (an ext4 casefold directory; NTFS) each is
// the denied file. A path deny (":workspace_roots/private", EqualFold)
// catches the same letter: see the control.
func TestAttack139_GlobDenyLongS(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"config/ſecrets/db.txt": "password=sk-a139\n", "infra/prod.tfſtate": "{\"secret\":1}\n"})
	s := profileSnapshot(t, ws, map[string]domain.Access{"**/secrets/**": domain.AccessDeny, "**/*.tfstate": domain.AccessDeny, ws + "/private": domain.AccessDeny})
	for _, p := range []string{"config/ſecrets/db.txt", "infra/prod.tfſtate"} {
		if !strings.EqualFold(p, strings.ReplaceAll(p, "ſ", "s")) {
			t.Fatalf("setup: %q does not fold to its s spelling", p)
		}
		if _, err := (DecisionChecker{}).ResolveFile(&s, p, domain.AccessRead, false); err == nil {
			t.Errorf("ESCAPED: a read decision on %s was allowed under a glob deny of its s spelling", p)
		}
	}
}

// TestAttack139_GlobDenyLongSControl: the upper-case spellings are denied
// by the glob fold, and the path deny folds the long s.
func TestAttack139_GlobDenyLongSControl(t *testing.T) {
	ws := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"config/SECRETS/db.txt": "x\n", "infra/prod.TFSTATE": "x\n", "ſ-private/x": "x\n", "priſate/x": "x\n", "infra/main.tf": "x\n"})
	s := profileSnapshot(t, ws, map[string]domain.Access{"**/secrets/**": domain.AccessDeny, "**/*.tfstate": domain.AccessDeny, ws + "/prisate": domain.AccessDeny})
	for _, p := range []string{"config/SECRETS/db.txt", "infra/prod.TFSTATE", "priſate/x"} {
		if _, err := (DecisionChecker{}).ResolveFile(&s, p, domain.AccessRead, false); err == nil {
			t.Errorf("control: a read decision on %s was allowed", p)
		}
	}
	if _, err := (DecisionChecker{}).ResolveFile(&s, "infra/main.tf", domain.AccessRead, false); err != nil {
		t.Errorf("control: a read decision on infra/main.tf: %v", err)
	}
}
