package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

// TestAttack7DecisionRepositoryWrite (attack review 7): the runtime's own
// edit tools write outside the kernel sandbox, where nothing checks what a
// command left behind; a decision refuses a write with a ".git" component
// (any case, named as written or as resolved) and one that makes a
// directory a git dir (a file named HEAD; objects, refs, commondir or
// config next to a HEAD; anything in a bare repository), in every
// restricted mode, as a protected path is refused.
//
// Controls: ordinary files, config, objects and refs in directories without
// HEAD, a .github directory; a full_access turn and a profile whose
// protected list leaves out .git judge no repository.
func TestAttack7DecisionRepositoryWrite(t *testing.T) {
	ws := tempWorkspace(t)
	hostGit(t, ws, "init", "-q")
	mkfiles(t, ws, map[string]string{"src/main.go": "package main\n", "conf/": "", "notes/refs/": "",
		"bare/objects/": "", "bare/refs/": "", "full/HEAD": "ref: refs/heads/main\n", "full/objects/": "", "full/refs/": "",
		"wt/HEAD": "ref: refs/heads/x\n", "store/": ""})
	mustDo(t, os.Symlink("../store", ws+"/conf/.git"), os.Symlink("store", ws+"/alias"))
	k := domain.KernelFeatures{LandlockABI: 7, Seccomp: true, UserNamespaces: true}
	for _, mode := range []domain.Mode{domain.ModeAutoAcceptEdits, domain.ModeSupervised} {
		s := snapshotFor(t, mode, ws, k)
		for _, p := range []string{
			"evil/.git/HEAD", "evil/.git/config", "evil/.git/refs/heads/main", "evil/.git/objects/ab/cd", "evil/.GIT/config",
			"evil/.git", "sub/.Git/hooks/pre-commit", ".git/HEAD", ".git/objects/ab/cd", ".git/refs/heads/main",
			"bare/HEAD", "notes/HEAD", "store/head", "full/config", "full/hooks/post-checkout", "full/description", "wt/commondir",
			"wt/config", "wt/objects/ab", "conf/.git/HEAD",
		} {
			decideFile(t, s, p, wr, CodeWriteRequiresWritable, "")
		}
		for _, p := range []string{"src/main.go", "src/new.go", "conf/config", "notes/refs/x", "notes/objects/y", "bare/config",
			".github/workflows/ci.yml", ".gitignore", "git/config", "wt/notes.txt", "alias/x", "src/HEAD.md"} {
			decideFile(t, s, p, wr, "", "")
		}
		// Reads are not writes.
		decideFile(t, s, ".git/HEAD", rd, "", ws+"/.git/HEAD")
	}
	decideFile(t, snapshotFor(t, domain.ModeFullAccess, ws, k), "evil/.git/config", wr, "", "")
	none, err := domain.ResolveSnapshot(domain.SnapshotInputs{
		Profile: domain.ResolveProfile(&domain.ProfileRequest{Mode: domain.ModeAutoAcceptEdits}, domain.SourceComposer),
		Cwd:     ws, WorkspaceRoot: ws, Kernel: k, ProtectedPaths: []domain.ProtectedPath{},
	})
	if err != nil {
		t.Fatal(err)
	}
	decideFile(t, &none, "evil/.git/config", wr, "", ws+"/evil/.git/config")
}
