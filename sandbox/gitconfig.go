package sandbox

import (
	"bufio"
	"io"
	"path"
	"strings"
)

// gitConfigRef is one path a git config file refers to.
type gitConfigRef struct {
	path    string
	include bool
	// program: a word of a command the config gives git to run (a
	// filter, a signing program, an editor …): kept read-only where it
	// is a file; arg: not the command's program, so not noted missing.
	program, arg bool
}

// gitConfigRefs parses the config file (read without following a final
// symlink; bounded) for core.hooksPath, init.templateDir, core.fsmonitor
// (when it names a program rather than a boolean) and include paths.
func gitConfigRefs(file string) []gitConfigRef {
	var out []gitConfigRef
	scanGitConfig(file, func(section, k, v string) bool {
		switch {
		case v == "":
		case section == "core" && k == "hookspath":
			out = append(out, gitConfigRef{path: v})
			// husky 9's hooks path, DIR/_, holds stubs that run DIR/h
			// and through it the script of the hook's name in DIR (the
			// person's .husky/pre-commit): DIR is kept too.
			if dir, base := path.Split(strings.TrimRight(v, "/")); base == "_" && strings.Trim(dir, "/") != "" && strings.TrimRight(dir, "/") != "." && strings.TrimRight(dir, "/") != "~" {
				out = append(out, gitConfigRef{path: strings.TrimRight(dir, "/")})
			}
		case section == "init" && k == "templatedir":
			// git init and git clone copy its hooks into each new
			// repository (and clone runs the copied post-checkout at
			// once): kept as a hooks path is.
			out = append(out, gitConfigRef{path: v})
		case section == "core" && k == "fsmonitor":
			switch strings.ToLower(v) {
			case "true", "false", "yes", "no", "on", "off", "1", "0":
			default:
				// A command (sh tools/fsmonitor): each word that names a
				// path, as for any program git runs (the hundredth review).
				out = append(out, commandPaths(v)...)
			}
		case (section == "include" || section == "includeif") && k == "path":
			out = append(out, gitConfigRef{path: v, include: true})
		case gitProgramKey(section, k, v):
			out = append(out, commandPaths(v)...)
		}
		return len(out) < maxSubmodules
	})
	return out
}

// gitConfigWorktrees returns the core.worktree values of the config file
// (each one given, not only the last git takes; read as gitConfigRefs
// reads, without includes, which git's choice of the work tree does not
// follow either).
func gitConfigWorktrees(file string) []string {
	var out []string
	scanGitConfig(file, func(section, k, v string) bool {
		if section == "core" && k == "worktree" && v != "" {
			out = append(out, v)
		}
		return len(out) < maxSubmodules
	})
	return out
}

// gitDirWorktrees returns the core.worktree values of the git dir g's
// config and config.worktree, a relative one joined to g as git takes it
// (not cleaned: a ".." after a symlink is the parent of its target).
func gitDirWorktrees(g string) []string {
	var out []string
	for _, n := range []string{"config", "config.worktree"} {
		for _, wt := range gitConfigWorktrees(joinPath(g, n)) {
			if !strings.HasPrefix(wt, "/") {
				wt = g + "/" + wt
			}
			out = append(out, wt)
		}
	}
	return out
}

// scanGitConfig calls fn with each key of the config file (read without
// following a final symlink; bounded) and its value, as git reads them:
// the section lower case, its subsection dropped, the key lower case;
// until fn returns false.
func scanGitConfig(file string, fn func(section, k, v string) bool) {
	f, _, ok := openRegular(file)
	if !ok {
		return
	}
	defer f.Close()
	scanGitConfigFrom(f, fn)
}

// scanGitConfigFrom is scanGitConfig for a config read from r.
func scanGitConfigFrom(r io.Reader, fn func(section, k, v string) bool) {
	section := ""
	sc := bufio.NewScanner(io.LimitReader(r, maxGitmodulesSize))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		// A backslash at the end of a line continues the value on the
		// next one (git's config parser).
		for strings.HasSuffix(line, `\`) && !strings.HasSuffix(line, `\\`) && sc.Scan() {
			line = line[:len(line)-1] + sc.Text()
		}
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			name, _, _ := strings.Cut(strings.TrimSpace(line[1:end]), " ")
			section = strings.ToLower(name)
			line = strings.TrimSpace(line[end+1:])
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		if !fn(section, strings.ToLower(strings.TrimSpace(k)), gitConfigValue(v)) {
			return
		}
	}
}

// gitProgramKey reports whether the key k of section (its subsection
// dropped) names a command git runs: filters, diff and merge drivers,
// signing programs, editors, pagers, ssh and credential helpers, remote
// programs, tools, git archive's tar.<format>.command, upload-pack's
// packObjectsHook, git-lfs's custom transfer agents and extensions
// (lfs.customtransfer.<name>.path, lfs.extension.<name>.clean), and aliases and submodule updates that start with "!".
func gitProgramKey(section, k, v string) bool {
	switch section + "." + k {
	case "core.sshcommand", "core.editor", "core.pager", "core.askpass", "core.gitproxy", "core.alternaterefscommand",
		"sequence.editor", "diff.external", "diff.textconv", "diff.command", "filter.clean", "filter.smudge", "filter.process",
		"merge.driver", "gpg.program", "gpg.defaultkeycommand", "credential.helper", "interactive.difffilter",
		"mergetool.cmd", "mergetool.path", "difftool.cmd", "difftool.path", "remote.uploadpack", "remote.receivepack",
		"web.browser", "browser.cmd", "browser.path", "man.cmd", "man.path", "guitool.cmd", "instaweb.httpd",
		"sendemail.sendmailcmd", "sendemail.smtpserver", "sendemail.tocmd", "sendemail.cccmd", "imap.tunnel",
		"tar.command", "uploadpack.packobjectshook", "lfs.path", "lfs.clean", "lfs.smudge",
		"trailer.cmd", "trailer.command", "sendemail.headercmd":
		return true
	case "alias." + k, "submodule.update":
		return strings.HasPrefix(v, "!")
	}
	return section == "pager"
}

// commandPaths returns the words of the command v that name a path (hold a
// "/", neither an option nor an expansion git or the shell makes): the
// first of each simple command is its program, the others its arguments
// (a script an interpreter runs).
func commandPaths(v string) []gitConfigRef {
	var out []gitConfigRef
	first := true
	for _, w := range strings.FieldsFunc(strings.TrimPrefix(v, "!"), func(r rune) bool { return strings.ContainsRune(" \t\n;&|()`", r) }) {
		w = strings.NewReplacer("'", "", `\`, "").Replace(w) // the shell's quotes
		if strings.ContainsAny(w, "$%*?[{=") || strings.HasPrefix(w, "-") || strings.Contains(w, "://") {
			if strings.Contains(w, "=") && !strings.Contains(w, "/") && first {
				continue // an assignment before the program
			}
			// An option's value that names a program or script
			// (ssh -oProxyCommand=tools/proxy.sh).
			if _, val, ok := strings.Cut(w, "="); ok && strings.Contains(val, "/") && !strings.ContainsAny(val, "$%*?[{=") && !strings.Contains(val, "://") {
				out = append(out, gitConfigRef{path: val, program: true, arg: true})
			}
			first = false
			continue
		}
		if strings.Contains(w, "/") {
			out = append(out, gitConfigRef{path: w, program: true, arg: !first})
		}
		first = false
	}
	return out
}

// gitConfigValue reads a config value as git does: quotes anywhere are
// dropped (their content kept as is), backslash escapes \\, \", \n, \t
// and \b are decoded, a comment (# or ;) outside quotes ends the value, and
// blanks outside quotes at either end are dropped.
func gitConfigValue(v string) string {
	var b strings.Builder
	quoted, pending := false, 0 // pending: blanks held until a later character shows they are inside
	for i := 0; i < len(v); i++ {
		ch := v[i]
		switch {
		case ch == '"':
			quoted = !quoted
			continue
		case ch == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				ch = '\n'
			case 't':
				ch = '\t'
			case 'b':
				ch = '\b'
			default:
				ch = v[i]
			}
		case !quoted && (ch == '#' || ch == ';'):
			return b.String()
		case !quoted && (ch == ' ' || ch == '\t'):
			if b.Len() > 0 {
				pending++
			}
			continue
		}
		for ; pending > 0; pending-- {
			b.WriteByte(' ')
		}
		b.WriteByte(ch)
	}
	return b.String()
}
