package domain

import (
	"strings"
	"testing"
)

// TestCheckGitConfigTrustsWhatGitWrites: the configs git init, git clone
// (with --filter), git submodule and git config user.* write are trusted.
func TestCheckGitConfigTrustsWhatGitWrites(t *testing.T) {
	for name, config := range map[string]string{
		"init": "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n",
		"clone": "[core]\n\trepositoryformatversion = 1\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n" +
			"[remote \"origin\"]\n\turl = https://example.com/x.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n" +
			"\tpromisor = true\n\tpartialclonefilter = blob:none\n[extensions]\n\tpartialClone = origin\n" +
			"[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
		"submodule": "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ../../../sub\n" +
			"[submodule \"sub\"]\n\turl = ../sub.git\n\tactive = true\n",
		"user":  "; a comment\n# another\n[user]\n\tname = \"A \\\"quoted\\\" name\" # comment\n\temail=a@example.com\n[core]\n\tbare\n",
		"empty": "",
	} {
		if err := CheckGitConfig([]byte(config)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestCheckGitConfigRefusesPrograms: every way to name a program, and every
// line the strict parse does not read as git does, is refused.
func TestCheckGitConfigRefusesPrograms(t *testing.T) {
	for _, config := range []string{
		"[core]\n\tfsmonitor = touch /tmp/x\n",
		"[core]\n\thooksPath = /tmp\n",
		"[CORE]\n\tFsMonitor = x\n",
		"[core]\n\tsshCommand = x\n",
		"[core]\n\tpager = x\n",
		"[core] fsmonitor = x\n",                     // a key on the header's line
		"[core.x]\n\tfsmonitor = x\n",                // the old form
		"[core]\n\tbare = false \\\nfsmonitor = x\n", // continued
		"[include]\n\tpath = /tmp/x\n",
		"[includeIf \"gitdir:/\"]\n\tpath = x\n",
		"[alias]\n\tst = !touch x\n",
		"[filter \"lfs\"]\n\tprocess = x\n",
		"[diff \"x\"]\n\ttextconv = x\n",
		"[submodule \"s\"]\n\tupdate = !x\n",
		"[remote \"o\"]\n\tuploadpack = x\n",
		"[credential]\n\thelper = x\n",
		"fsmonitor = x\n",              // no section
		"[core]\r\n\tbare = false\r\n", // carriage returns
		"\xef\xbb\xbf[core]\n\tbare = false\n",
		"[core]\n\tbare = \"x\n", // unterminated quote
		"[core]\n\t\x00fsmonitor = x\n",
		"[core \"x]\n\tbare = x\n",
		"[user]\n\tname = a\n[core]\n\tfsmonitor\n",
		"[advice] x = y\n",
		strings.Repeat("#", MaxGitConfigSize+1),
	} {
		if err := CheckGitConfig([]byte(config)); err == nil {
			t.Errorf("%q trusted", config)
		}
	}
}

// TestGitHookTrusted: only git init's samples stay.
func TestGitHookTrusted(t *testing.T) {
	for name, want := range map[string]bool{"pre-commit.sample": true, "pre-commit": false, ".sample": false, "x.sample.sh": false} {
		if GitHookTrusted(name) != want {
			t.Errorf("%s: %v", name, !want)
		}
	}
}

// FuzzCheckGitConfig: the check never panics.
func FuzzCheckGitConfig(f *testing.F) {
	f.Add([]byte("[core]\n\tbare = false\n"))
	f.Add([]byte("[remote \"a\\\"b\"]\n\turl = x # c\n"))
	f.Fuzz(func(t *testing.T, b []byte) { _ = CheckGitConfig(b) })
}

// TestCheckGitConfigWorktree: the last core.worktree is returned; a value
// that is not a plain path is refused.
func TestCheckGitConfigWorktree(t *testing.T) {
	if wt, err := CheckGitConfigWorktree([]byte("[core]\n\tworktree = ../a\n\tworktree = ../../b\n")); err != nil || wt != "../../b" {
		t.Fatalf("%q %v", wt, err)
	}
	for _, v := range []string{`"/x"`, `/x # c`, `a\b`, ``, `x;y`} {
		if _, err := CheckGitConfigWorktree([]byte("[core]\n\tworktree = " + v + "\n")); err == nil {
			t.Errorf("%q read", v)
		}
	}
}

// TestCheckGitConfigChange: a config replaced while a command ran is judged
// by what it gained: a key line it held before under the same section
// header stays the person's; a new untrusted key, and an old line moved
// under another header, are refused; the parse stays strict.
func TestCheckGitConfigChange(t *testing.T) {
	before := "[core]\n\tbare = false\n\thooksPath = .husky/_\n[alias]\n\tst = !git status\n"
	for _, c := range []struct {
		after string
		ok    bool
	}{
		{before + "[remote \"upstream\"]\n\turl = https://example.com/x\n", true},
		{before + "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n", true},
		{before + "[core]\n\tfsmonitor = touch x\n", false},
		{"[core]\n\tbare = false\n\thooksPath = .husky/_\n\tfsmonitor = touch x\n[alias]\n\tst = !git status\n", false},
		{"[alias]\n\thooksPath = .husky/_\n", false},
		{before + "[user]\n\tname = a \\\n\tb\n", false}, // a continuation
	} {
		_, err := CheckGitConfigChange([]byte(before), []byte(c.after))
		if (err == nil) != c.ok {
			t.Errorf("%q: %v, want ok %v", c.after, err, c.ok)
		}
	}
	if err := CheckGitConfig([]byte(before)); err == nil {
		t.Fatal("control: the person's config is not trusted as a new one")
	}
}
