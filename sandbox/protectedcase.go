package sandbox

import "turnstile/domain"

// protectedInAnyCase returns the read-only item of the protected list whose
// path covers the canonical path canon, or the path as written (lexical,
// against the item's snapshot path), in another letter case; nil when none
// does. Where the file system finds names in any case (WSL's drvfs, vfat
// and exfat, an ext4 or f2fs casefold directory), .VSCODE/tasks.json,
// .ENVRC and .BASHRC open the protected files themselves; a file tool
// writes outside the kernel sandbox, so the decision refuses them as it
// refuses the items (the hundred-and-thirty-sixth review). .git and the
// reserved names are judged in any case elsewhere (repositoryRefusal,
// agentSettingsRefusal); this only narrows, never grants.
func (v *fsView) protectedInAnyCase(canon, lexical string) *fsRule {
	var buf [32]int32
	cand := v.foldCandidates(canon, lexical, buf[:0])
	for i, c := range v.carvesAmong(cand) {
		if c.Kind != domain.PathProtected || c.Access != domain.AccessRead || c.Reserved {
			continue
		}
		if domain.PathWithinFold(canon, c.Path) || c.From != "" && domain.PathWithinFold(lexical, domain.CleanPath(c.From)) {
			return &v.carves[v.carveAt(cand, i)]
		}
	}
	return nil
}
