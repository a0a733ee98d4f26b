package sandbox

import (
	"os"
	"testing"

	"turnstile/domain"
)

func attack4HuskyWS(t *testing.T, ws string) {
	t.Helper()
	mkfiles(t, ws, map[string]string{"src/main.go": "package main\n", "pkg/index.js": "x\n"})
	hostGit(t, ws, "init", "-q")
	if err := os.MkdirAll(ws+"/.husky/_", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/.husky/_/pre-commit", []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	hostGit(t, ws, "config", "core.hooksPath", ".husky/_")
	hostGit(t, ws, "add", ".")
	hostGit(t, ws, "commit", "-q", "-m", "husky")
}

// TestAttack4RerootLaterLink (fourth attack review): the re-root rule reads
// a gitfile only in the command that wrote it, and resolves its target
// then. Command 1 writes pkg/.git = "gitdir: ../lnk" (lnk does not exist:
// nothing held, rule skipped) and pkg/.husky/_/pre-commit; command 2 only
// makes the symlink lnk -> .git (pkg/.git unchanged: not read). git then
// takes pkg for a second work tree of the held workspace repository.
func TestAttack4RerootLaterLink(t *testing.T) {
	f := newPlantFixture(t)
	attack4Husky(t, f)
	hook := "mkdir -p .husky/_ && printf '#!/bin/sh\\n" + f.attackMarkerCmd() + "\\n' > .husky/_/pre-commit && chmod +x .husky/_/pre-commit && "
	r := sh(t, f.s, "cd pkg && echo 'gitdir: ../lnk' > .git && "+hook+"echo ok")
	attackReport(t, "command 1", r)
	// A .git file whose git dir does not exist is set aside at once.
	if len(r.Quarantined) != 1 || exists(f.ws+"/pkg/.git") {
		t.Fatalf("the dangling .git file was not set aside: %+v", r.Quarantined)
	}
	clockPast(t, f.ws+"/pkg")
	r = sh(t, f.s, "ln -s .git lnk && echo ok")
	attackReport(t, "command 2", r)
	attackHostStatus(t, f, f.ws+"/pkg", "commit", "-q", "--allow-empty", "-m", "in the package")
}

func attack4Husky(t *testing.T, f *plantFixture) {
	t.Helper()
	if err := os.MkdirAll(f.ws+"/.husky/_", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.ws+"/.husky/_/pre-commit", []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	hostGit(t, f.ws, "config", "core.hooksPath", ".husky/_")
	mkfiles(t, f.ws, map[string]string{"pkg/index.js": "x\n"})
	hostGit(t, f.ws, "add", ".")
	hostGit(t, f.ws, "commit", "-q", "-m", "husky")
}

// TestAttack4RerootUnderModules (fourth attack review): the re-root rule
// skips every target whose path contains "/modules/" (meant: a
// submodule's git dir under .git/modules/). A person's workspace that
// lives below a directory named "modules" (~/src/modules/app, a
// Terraform/Ansible modules tree) therefore has no re-root protection: the
// third review's plain gitfile "gitdir: ../.git" works again.
func TestAttack4RerootUnderModules(t *testing.T) {
	requireKernel(t, true)
	base := tempWorkspace(t)
	ws := base + "/modules/app"
	attack4HuskyWS(t, ws)
	f := &plantFixture{ws: ws, marker: base + "/pwned", s: snapshotFor(t, domain.ModeAutoAcceptEdits, ws, machine().Kernel)}
	r := sh(t, f.s, "cd pkg && echo 'gitdir: ../.git' > .git && mkdir -p .husky/_ && printf '#!/bin/sh\\n"+f.attackMarkerCmd()+"\\n' > .husky/_/pre-commit && chmod +x .husky/_/pre-commit && echo ok")
	attackReport(t, "command", r)
	if r.ExitCode != 0 {
		t.Fatal("the plant failed")
	}
	attackHostStatus(t, f, ws+"/pkg", "commit", "-q", "--allow-empty", "-m", "in the package")
}
