package domain

import (
	"fmt"
	"strings"
)

// MaxGitConfigSize bounds a git config file CheckGitConfig trusts.
const MaxGitConfigSize = 64 << 10

// UntrustedSuffix is appended to what a restricted command left in a
// writable root that a host program would run: the HEAD of a repository
// with a config or hooks that are not trusted (without its HEAD, no git
// takes the directory for a repository), a stopped rebase's state with an
// exec instruction, a protected file it created. A person can look at it
// and rename it back.
const UntrustedSuffix = ".turnstile-untrusted"

// gitTrustedKeys are the config keys a repository a command created may
// hold: what git init, git clone (also with --filter or --recurse-submodules)
// and git submodule write, and settings that only choose between built-in
// behaviours. Keys are "section.key" or "section.*.key" (any subsection),
// lower case. Every key that names a program, a file git reads or another
// config (core.fsmonitor, core.hooksPath, core.sshCommand, core.pager,
// core.editor, filter.*, diff.*, alias.*, credential.*, include.*,
// submodule.*.update, remote.*.uploadpack, …) is absent by design: an
// allowlist, because git grows new ones.
var gitTrustedKeys = map[string]bool{
	"core.repositoryformatversion": true, "core.filemode": true, "core.bare": true,
	"core.logallrefupdates": true, "core.ignorecase": true, "core.precomposeunicode": true,
	"core.symlinks": true, "core.worktree": true, "core.sparsecheckout": true,
	"core.sparsecheckoutcone": true, "core.autocrlf": true, "core.eol": true,
	"core.safecrlf": true, "core.quotepath": true, "core.abbrev": true,
	"extensions.objectformat": true, "extensions.worktreeconfig": true,
	"extensions.partialclone": true, "extensions.refstorage": true,
	"remote.*.url": true, "remote.*.pushurl": true, "remote.*.fetch": true, "remote.*.push": true,
	"remote.*.tagopt": true, "remote.*.promisor": true, "remote.*.partialclonefilter": true,
	"remote.*.mirror": true, "remote.*.prune": true,
	"branch.*.remote": true, "branch.*.merge": true, "branch.*.rebase": true,
	"branch.*.pushremote": true, "branch.*.description": true,
	"submodule.*.url": true, "submodule.*.active": true, "submodule.*.branch": true,
	"submodule.active": true, "submodule.recurse": true,
	"user.name": true, "user.email": true, "init.defaultbranch": true,
	"pull.rebase": true, "pull.ff": true, "push.default": true, "push.autosetupremote": true,
	"fetch.prune": true, "gc.auto": true, "receive.denycurrentbranch": true,
	"advice.*": true, "color.ui": true,
	// A person's everyday choices between built-in behaviours (a
	// repository the command only wrote into keeps them: git remote add in
	// it has the whole config read).
	"core.sharedrepository": true, "core.whitespace": true, "core.untrackedcache": true,
	"core.preloadindex": true, "core.commitgraph": true, "index.version": true,
	"receive.denynonfastforwards": true, "receive.denydeletes": true,
	"merge.conflictstyle": true, "merge.ff": true, "merge.log": true,
	"rerere.enabled": true, "rerere.autoupdate": true,
	"diff.algorithm": true, "diff.renames": true, "diff.colormoved": true, "diff.mnemonicprefix": true,
	"push.followtags": true, "fetch.prunetags": true,
	"rebase.autosquash": true, "rebase.autostash": true, "rebase.updaterefs": true,
	"status.showuntrackedfiles": true, "status.submodulesummary": true,
	"log.date": true, "log.decorate": true, "tag.sort": true, "branch.sort": true, "column.ui": true,
	"feature.manyfiles": true,
}

// GitHookTrusted reports whether an entry of a hooks directory may be left
// in a repository a command created: only git init's samples, which git
// never runs.
func GitHookTrusted(name string) bool {
	return strings.HasSuffix(name, ".sample") && name != ".sample"
}

// CheckGitConfig returns nil when every key of the git config file data is
// trusted (gitTrustedKeys), and otherwise an error naming the first line
// that is not. The parse is strict so that it can never see fewer keys than
// git does: it takes one line at a time and refuses what git would join or
// read differently (a value continued with a backslash, a key on a section
// header's line, the old [section.sub] form, a carriage return, a NUL, a
// byte order mark, an unterminated quote) rather than guess.
func CheckGitConfig(data []byte) error {
	_, err := CheckGitConfigWorktree(data)
	return err
}

// CheckGitConfigWorktree is CheckGitConfig that also returns the last
// core.worktree value (git's choice of the work tree, which a caller must
// keep inside where the repository may be; "" when unset). A value with a
// quote, a backslash or a comment character is refused rather than read.
func CheckGitConfigWorktree(data []byte) (worktree string, err error) {
	return checkGitConfig(data, nil)
}

// CheckGitConfigChange is CheckGitConfigWorktree for a config that was
// replaced while a command ran, given the config as it was when the
// command started (before): a key line that the earlier config held under
// the same section header line was there before the command and is not
// judged again (a person's git rewrote the config: git push -u added a
// branch, a key of their own stays theirs); every other key must be
// trusted, and the parse of the whole config is as strict as
// CheckGitConfig's.
func CheckGitConfigChange(before, after []byte) (worktree string, err error) {
	known := map[[2]string]bool{}
	header := ""
	for line := range strings.SplitSeq(string(before), "\n") {
		line = strings.TrimLeft(line, " \t")
		if line != "" && line[0] == '[' {
			header = line
			continue
		}
		known[[2]string{header, line}] = true
	}
	return checkGitConfig(after, known)
}

// checkGitConfig is CheckGitConfigWorktree, taking the key lines in known
// (section header line, key line) as trusted.
func checkGitConfig(data []byte, known map[[2]string]bool) (worktree string, err error) {
	if len(data) > MaxGitConfigSize {
		return "", fmt.Errorf("config larger than %d bytes", MaxGitConfigSize)
	}
	s := string(data)
	if strings.ContainsAny(s, "\x00\r") || strings.HasPrefix(s, "\xef\xbb\xbf") {
		return "", fmt.Errorf("config holds a NUL, a carriage return or a byte order mark")
	}
	section, sub, header := "", false, ""
	for n, line := range strings.Split(s, "\n") {
		line = strings.TrimLeft(line, " \t")
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case line[0] == '[':
			name, hasSub, ok := gitSectionHeader(line)
			if !ok {
				return "", fmt.Errorf("line %d: section header not read", n+1)
			}
			section, sub, header = name, hasSub, line
			continue
		}
		key, ok := gitKeyLine(line)
		if !ok || section == "" {
			return "", fmt.Errorf("line %d: not read as one key", n+1)
		}
		if !gitKeyTrusted(section, sub, key) && !known[[2]string{header, line}] {
			name := section + "." + key
			if sub {
				name = section + ".*." + key
			}
			return "", fmt.Errorf("line %d: %s is not a trusted key", n+1, name)
		}
		if section == "core" && !sub && key == "worktree" {
			_, v, _ := strings.Cut(line, "=")
			if v = strings.Trim(v, " \t"); v == "" || strings.ContainsAny(v, "\"\\#;") {
				return "", fmt.Errorf("line %d: core.worktree's value is not a plain path", n+1)
			}
			worktree = v
		}
	}
	return worktree, nil
}

// GitConfigKeyTrusted reports whether a key as git config --list names it
// ("section.key" or "section.subsection.key") is trusted.
func GitConfigKeyTrusted(name string) bool {
	i, j := strings.IndexByte(name, '.'), strings.LastIndexByte(name, '.')
	if i <= 0 || j == len(name)-1 {
		return false
	}
	return gitKeyTrusted(strings.ToLower(name[:i]), i != j, strings.ToLower(name[j+1:]))
}

func gitKeyTrusted(section string, sub bool, key string) bool {
	if gitTrustedKeys[section+".*"] {
		return true
	}
	if sub {
		return gitTrustedKeys[section+".*."+key]
	}
	return gitTrustedKeys[section+"."+key]
}

// gitSectionHeader reads `[name]` or `[name "subsection"]`, optionally
// followed by a comment, and returns the lower-cased name.
func gitSectionHeader(line string) (name string, sub, ok bool) {
	i := 1
	for i < len(line) && (isAlnum(line[i]) || line[i] == '-') {
		i++
	}
	name = strings.ToLower(line[1:i])
	if name == "" || i == len(line) {
		return "", false, false
	}
	if line[i] == ' ' || line[i] == '\t' {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) || line[i] != '"' {
			return "", false, false
		}
		i++
		for ; i < len(line) && line[i] != '"'; i++ {
			if line[i] == '\\' {
				i++
			}
		}
		if i >= len(line) {
			return "", false, false
		}
		i++
		sub = true
	}
	if i == len(line) || line[i] != ']' {
		return "", false, false
	}
	return name, sub, gitBlankOrComment(line[i+1:])
}

// gitKeyLine reads `key`, `key = value` or `key=value` (a value that git
// would continue on the next line is refused) and returns the lower-cased
// key.
func gitKeyLine(line string) (key string, ok bool) {
	i := 0
	for i < len(line) && (isAlnum(line[i]) || line[i] == '-') {
		i++
	}
	if i == 0 || !isAlpha(line[0]) {
		return "", false
	}
	key, rest := strings.ToLower(line[:i]), strings.TrimLeft(line[i:], " \t")
	if rest == "" || rest[0] == '#' || rest[0] == ';' {
		return key, true
	}
	if rest[0] != '=' {
		return "", false
	}
	quoted := false
	for j := 1; j < len(rest); j++ {
		switch c := rest[j]; {
		case c == '\\':
			if j+1 == len(rest) {
				return "", false // continued on the next line
			}
			j++
		case c == '"':
			quoted = !quoted
		case !quoted && (c == '#' || c == ';'):
			return key, true
		}
	}
	return key, !quoted
}

func gitBlankOrComment(s string) bool {
	s = strings.TrimLeft(s, " \t")
	return s == "" || s[0] == '#' || s[0] == ';'
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }
