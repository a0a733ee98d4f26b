package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"turnstile/domain"
)

// TestCheckGitConfigSeesWhatGitSees: an attacker's config the check trusts
// holds no key git reads that is not trusted. Configs are drawn from the
// parser's corners (continuations, quotes, escapes, comments, headers with
// keys, the old section form, odd whitespace, carriage returns) and read
// by the host's git itself (git config --list, which runs nothing).
func TestCheckGitConfigSeesWhatGitSees(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		missingPrerequisite(t, "git: %v", err)
	}
	dir := t.TempDir()
	headers := []string{`[core]`, `[Core]`, `[core "x"]`, `[remote "o"]`, `[core.x]`, `[ core]`, `[core ]`, `[core] `, `[core] fsmonitor = x`,
		`[remote "a\"b"]`, `[remote "a\\"]`, `[include]`, `[alias]`, `[user]`, `[remote "x" ]`, `[remote"x"]`, `[advice]`, `[core]#c`}
	keys := []string{"fsmonitor", "bare", "url", "name", "path", "hooksPath", "st", "FsMonitor", "email", "fsmonitor-x", "1x"}
	seps := []string{" = ", "=", " ", "", "\t=\t", " =", " # ", "="}
	values := []string{`x`, `"x"`, `"x`, `x\`, `x # c`, `"a;b"`, `\"`, `x\\`, `"x\" fsmonitor = y"`, `"a\`, ``, `"`, `\\\`, `x ; y`, `"\n"`}
	leads := []string{"", "\t", " ", "\v", "\f", "  \t"}
	read := 0 // configs the check trusted and git read
	prop := func(rt *rapid.T) {
		n := rapid.IntRange(1, 6).Draw(rt, "lines")
		first := rapid.IntRange(0, 2).Draw(rt, "first")
		lines := []string{[]string{"[core]", `[remote "o"]`, "[user]"}[first]}
		benign := [][]string{{"bare", "filemode", "Bare"}, {"url", "fetch", "URL"}, {"name", "email"}}[first]
		for i := 0; i < n; i++ {
			lead := rapid.SampledFrom(leads).Draw(rt, "lead")
			switch rapid.IntRange(0, 7).Draw(rt, "kind") {
			case 0:
				lines = append(lines, lead+rapid.SampledFrom(headers).Draw(rt, "header"))
			case 1:
				lines = append(lines, lead+"#"+rapid.SampledFrom(values).Draw(rt, "comment"))
			case 2, 3, 4, 5:
				// mostly benign, so that many drawn configs are trusted
				lines = append(lines, lead+rapid.SampledFrom(benign).Draw(rt, "tkey")+rapid.SampledFrom(seps).Draw(rt, "tsep")+rapid.SampledFrom(values).Draw(rt, "tvalue"))
			default:
				lines = append(lines, lead+rapid.SampledFrom(keys).Draw(rt, "key")+rapid.SampledFrom(seps).Draw(rt, "sep")+rapid.SampledFrom(values).Draw(rt, "value"))
			}
		}
		config := strings.Join(lines, rapid.SampledFrom([]string{"\n", "\n", "\r\n"}).Draw(rt, "eol")) + "\n"
		if domain.CheckGitConfig([]byte(config)) != nil {
			return
		}
		file := filepath.Join(dir, "config")
		if err := os.WriteFile(file, []byte(config), 0o600); err != nil {
			rt.Fatal(err)
		}
		cmd := exec.Command("git", "config", "--file", file, "--list", "--name-only", "-z")
		cmd.Env = []string{"HOME=" + dir, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1"}
		out, err := cmd.Output()
		if err != nil {
			return // git cannot read it: nothing in it runs
		}
		read++
		for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			if name != "" && !domain.GitConfigKeyTrusted(name) {
				rt.Fatalf("trusted %q, where git reads %s", config, name)
			}
		}
	}
	// Most drawn configs are refused before git reads them: draw until
	// enough were read by both.
	for i := 0; i < 100 && read < 300 && !t.Failed(); i++ {
		rapid.Check(t, prop)
	}
	if read < 300 && !t.Failed() {
		t.Fatalf("only %d drawn configs were both trusted and read by git: the property was barely tried", read)
	}
	t.Logf("%d configs trusted and read by git", read)
}
