package sandbox

import (
	"slices"
	"strings"
	"testing"

	"turnstile/domain"
)

// TestLauncherBareRefsOf: the bare names each loose format may give, and
// what is not one (a .bazelrc's command, an .npmrc's key, a -D property
// whose name says nothing of a path, a flag, a variable, a pattern).
func TestLauncherBareRefsOf(t *testing.T) {
	for _, c := range []struct {
		item, data string
		want       []string
	}{
		{".envrc", "layout python\nbash setup.sh --fast\nbuiltin source env.sh\ncommand . 'my env.sh'\neval \"$(cat extra.sh)\"\nFOO=bar:baz\necho $HOME *.txt\n",
			[]string{"bar", "baz", "env.sh", "extra.sh", "my env.sh", "python", "setup.sh", "source"}},
		{".envrc", "if [ x; then source a.sh\n", []string{"a.sh", "source", "then", "x;"}}, // does not parse: the words after each line's first
		{".bazelrc", "build --disk_cache=cache\ntry-import user.bazelrc\n", []string{"cache", "user.bazelrc"}},
		{".npmrc", "script-shell=shells/sh\ncache=npmcache\n", []string{"shells/sh", "npmcache"}},
		{"Directory.Build.rsp", "-logger:BuildLogger,BuildLogger.dll\n# -logger:x\n", []string{"BuildLogger", "BuildLogger.dll"}},
		{".mvn/maven.config", "-Dmaven.repo.local=m2repo -Denv=dev -T 4\n", []string{"m2repo"}},
		{"Directory.Build.rsp", "-dl:C,central.dll*F,fwd.dll\n-logger:L,\"My Logger.dll\"\n", []string{"C", "central.dll", "F", "fwd.dll", "L", "My Logger.dll"}},
		{".envrc", "source en\\v.sh\nsource $'e\\x2esh'\nsource {a,b}.sh\neval \"source c.sh\"\nbash -c 'source d.sh'\nsource /dev/stdin < f.sh\nfor x in g.sh *.sh; do :; done\n",
			[]string{"env.sh", "e.sh", "a.sh", "b.sh", "source c.sh", "c.sh", "source d.sh", "d.sh", "/dev/stdin", "f.sh", "g.sh"}},
	} {
		got := launcherBareRefsOf(c.item, []byte(c.data)).names
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("launcherBareRefsOf(%s, %q) = %q, want %q", c.item, c.data, got, want)
		}
	}
}

// TestLauncherBareNameOnlyWhereItExists: a bare name the launcher file
// gives is kept read-only where it exists, and a missing one is not
// watched: a command that makes a directory of that name keeps it (most
// bare words are no paths). Control: the existing one is refused.
func TestLauncherBareNameOnlyWhereItExists(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".bazelrc": "build --disk_cache=cache --config=later\n", "cache/x": "x\n", "build/out": "o\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/cache/x", domain.AccessWrite, false); err == nil {
		t.Error("a write in cache, which .bazelrc names and which exists, was allowed")
	}
	for _, p := range []string{"/build/out", "/later/y"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+p, domain.AccessWrite, false); err != nil {
			t.Errorf("a write of %s (the command's name, or a bare word that names nothing) was refused: %v", p, err)
		}
	}
	r := sh(t, s, "mkdir later && echo y > later/y && echo o2 > build/out && echo done")
	if r.ExitCode != 0 || len(r.Quarantined) != 0 || !exists(f.ws+"/later/y") {
		t.Fatalf("an honest command: %d %+v %s", r.ExitCode, r.Quarantined, r.Stderr)
	}
}

// TestLauncherBareRunRefs: the bare names of .envrc in a place that runs,
// sources or puts in PATH what they name, and what is no such place (an
// echo's argument, an output redirection's target, a loop's words whose
// body runs nothing).
func TestLauncherBareRunRefs(t *testing.T) {
	for _, c := range []struct {
		data string
		want []string
	}{
		{"bash setup.sh --fast\nbuiltin source env.sh\ncommand . 'my env.sh'\neval \"$(cat extra.sh)\"\n",
			[]string{"setup.sh", "env.sh", "my env.sh", "extra.sh"}},
		{"PATH_add bin\npath_add PYTHONPATH lib\nexport PATH=tools:$PATH\nFOO=a:b\nsource /dev/stdin < f.sh\n",
			[]string{"bin", "PYTHONPATH", "lib", "tools", "a", "b", "/dev/stdin", "f.sh"}},
		{"for f in a.sh b.sh; do source \"$f\"; done\nfor d in out dist; do mkdir -p \"$d\"; done\n", []string{"a.sh", "b.sh"}},
		{"echo build > log.txt\nlayout python\nuse nix\n", nil},
		{"bash -c 'exec python3 tool.py'\n", []string{"exec python3 tool.py", "tool.py"}},
		{"env PROJECT=demo bash boot.sh\ntimeout 60 bash init.sh\nnice -n 5 bash prep.sh\ndirenv_load bash load.sh\nsource \"$(expand_path local.sh)\"\n",
			[]string{"boot.sh", "init.sh", "prep.sh", "load.sh", "local.sh"}},
		{"$RUNNER x.sh\nmkdir -p \"$d\"\n", nil},
	} {
		got := launcherBareRefsOf(".envrc", []byte(c.data)).run
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("run of %q = %q, want %q", c.data, got, want)
		}
	}
}

// TestLauncherBareRunNameWatchedWhereMissing: a file .envrc runs by a bare
// name that does not exist yet (bash setup.sh, PATH_add bin) cannot be
// made by a file tool, and one a command made is set aside, so the
// person's next direnv does not run it. Control: a bare word .envrc only
// echoes (build) is made by the same command and kept.
func TestLauncherBareRunNameWatchedWhereMissing(t *testing.T) {
	f := newPlantFixture(t)
	mkfiles(t, f.ws, map[string]string{".envrc": "bash setup.sh\nPATH_add bin\necho build > /dev/null\n"})
	s := snapshotFor(t, domain.ModeAutoAcceptEdits, f.ws, machine().Kernel)
	for _, p := range []string{"/setup.sh", "/bin/git"} {
		if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+p, domain.AccessWrite, false); err == nil {
			t.Errorf("a write of %s, which .envrc runs and which does not exist, was allowed", p)
		}
	}
	if _, err := (DecisionChecker{}).ResolveFile(s, f.ws+"/build/out", domain.AccessWrite, false); err != nil {
		t.Errorf("control: a write of build/out (a word .envrc only echoes) was refused: %v", err)
	}
	r := sh(t, s, "echo 'touch /tmp/pwned' > setup.sh; mkdir -p bin build && echo x > bin/git && echo o > build/out && echo done")
	if !strings.Contains(string(r.Stdout), "done") {
		t.Fatalf("premise: the command did not run: %d %s", r.ExitCode, r.Stderr)
	}
	for _, p := range []string{"/setup.sh", "/bin"} {
		if exists(f.ws + p) {
			t.Errorf("%s, which .envrc runs, made by the command, stayed after the check (quarantined: %+v)", p, r.Quarantined)
		}
	}
	if !exists(f.ws + "/build/out") {
		t.Errorf("control: build/out, a word .envrc only echoes, was not kept: %+v", r.Quarantined)
	}
}
