package sandbox

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestAttack19GlobalTemplateDir (nineteenth attack review, medium): the
// person's global config may name a template dir (git config --global
// init.templateDir ~/dotfiles/git-template, the "effortless ctags" setup),
// whose hooks git copies into every repository the person makes or
// clones from then on; git clone runs the copied post-checkout at once.
// The sandbox keeps read-only the paths a config names for git to run
// (hooks path, includes, programs), not the template dir: a command in a
// root holding it (a dotfiles repository) wrote tmpl/hooks/post-checkout,
// and the person's next git clone, anywhere, ran it. Controls: the person's template hook is
// copied and runs before; a source file stays writable.
func TestAttack19GlobalTemplateDir(t *testing.T) {
	for _, tilde := range []bool{false, true} {
		testGlobalTemplateDir(t, tilde)
	}
}

// testGlobalTemplateDir: tilde names the template dir as ~/dotfiles/tmpl,
// the root being ~/dotfiles.
func testGlobalTemplateDir(t *testing.T, tilde bool) {
	f := requireKernel(t, true)
	home := tempWorkspace(t)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	ws := tempWorkspace(t)
	tmplPath := ws + "/tmpl"
	if tilde {
		ws = home + "/dotfiles"
		mustDo(t, os.MkdirAll(ws, 0o755))
		tmplPath = "~/dotfiles/tmpl"
	}
	out := tempWorkspace(t)
	mkfiles(t, ws, map[string]string{"src/main.go": "x\n",
		"tmpl/hooks/post-checkout": "#!/bin/sh\ntouch \"$(git rev-parse --show-toplevel)/person-hook-ran\"\n"})
	mustDo(t, os.Chmod(ws+"/tmpl/hooks/post-checkout", 0o755))
	mustDo(t, os.WriteFile(home+"/.gitconfig", []byte("[init]\n\ttemplateDir = "+tmplPath+"\n[user]\n\tname = p\n\temail = p@example.com\n"), 0o644))
	git := func(dir string, args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	// The root is a repository (the person's dotfiles), made before the
	// global config names the template dir in it.
	if o, err := git(ws, "-c", "init.templateDir=", "init", "-q"); err != nil {
		t.Fatal(o, err)
	}
	// A repository the person clones from (outside the roots).
	src := out + "/src"
	mustDo(t, os.MkdirAll(src, 0o755))
	if o, err := git(src, "init", "-q"); err != nil {
		t.Fatal(o, err)
	}
	if o, err := git(src, "commit", "-q", "--allow-empty", "-m", "first"); err != nil {
		t.Fatal(o, err)
	}
	if o, err := git(out, "clone", "-q", src, "before"); err != nil || !exists(out+"/before/person-hook-ran") {
		t.Fatalf("control: the person's template hook did not run at a clone: %v %s", err, o)
	}
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, ws, f.Kernel)
	forgetWalks()
	if _, err := (DecisionChecker{}).ResolveFile(s, "src/main.go", domain.AccessWrite, false); err != nil {
		t.Fatalf("control: a write decision on src/main.go was refused: %v", err)
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, "tmpl/hooks/post-checkout", domain.AccessWrite, false); err == nil {
		t.Errorf("a write decision on tmpl/hooks/post-checkout, in the template dir the person's global config names, was allowed")
	}
	r := sh(t, s, "echo y >> src/main.go && echo ok; printf '#!/bin/sh\\ntouch "+out+"/pwned\\n' > tmpl/hooks/post-checkout")
	attackReport(t, "command", r)
	if !strings.Contains(string(r.Stdout), "ok") || readFile(t, ws+"/src/main.go") != "x\ny\n" {
		t.Fatalf("control: the command could not write src/main.go")
	}
	o, err := git(out, "clone", "-q", src, "after")
	if exists(out + "/pwned") {
		t.Errorf("the person's next git clone ran the command's tmpl/hooks/post-checkout (set aside %v): %v %s", r.Quarantined, err, o)
	}
}
