package domain

import (
	"encoding/json"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The plain rule's reading of a simple command's arguments: the programs
// they may name and the code they may hold (plainCheck.call).

// argExecOptions run the words after them as a program (find's).
var argExecOptions = []string{"-exec", "-execdir", "-ok", "-okdir"}

// runsFromArgs reports whether a program's arguments name a program it may
// run: find's -exec, or a word (or an option's value after "=") whose
// first word is a shell, an interpreter or another reader of code.
func runsFromArgs(rest []string) bool {
	for _, w := range rest {
		if slices.Contains(argExecOptions, w) {
			return true
		}
		cands := []string{w}
		if _, v, ok := strings.Cut(w, "="); ok {
			cands = append(cands, v)
		}
		for _, cand := range cands {
			if f := strings.Fields(cand); len(f) > 0 {
				if b := readerBase(path.Base(f[0])); slices.Contains(codeReaders, b) || slices.Contains(codeWords, b) {
					return true
				}
			}
		}
	}
	return false
}

// computedInterpreter reports whether an argument computed by the shell is
// followed by an option giving code (flock l "$SHELL" -c '…', a computed
// program's inline code).
func computedInterpreter(args []*syntax.Word) bool {
	for i := 1; i+1 < len(args); i++ {
		if _, lit := literal(args[i]); lit {
			continue
		}
		if o, lit := literal(args[i+1]); lit && inlineCodeIn([]string{o}) {
			return true
		}
	}
	return false
}

// argRunners run a program named in their arguments (chronic sh -c '…',
// fakeroot, valgrind …): what would be hidden in those may be what runs.
var argRunners = []string{"sem", "chronic", "entr", "watchexec", "nodemon", "hyperfine",
	"ssh-agent", "dbus-run-session", "fakeroot", "fakechroot", "proot", "bwrap", "schroot", "daemonize",
	"start-stop-daemon", "valgrind", "perf", "lockf", "chpst", "setlock", "softlimit", "envdir", "newgrp", "run-one",
	"unbuffer", "faketime", "npx", "uvx", "pipx", "script", "expect", "tclsh", "su", "runuser", "timeout"}

// shellArgs reads a shell's arguments as a shell does: its options (-e,
// +e, -o NAME, +o NAME, -O NAME, --rcfile FILE, long options) up to "--",
// "-" or the first operand. inline: an option holding 'c' (sh -o errexit
// -c CODE, sh +e -c CODE); script: an operand follows them; stdin: -s.
func shellArgs(rest []string) (inline, script, stdin bool) {
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		switch {
		case w == "--" || w == "-":
			return inline, i+1 < len(rest), stdin
		case w == "--rcfile" || w == "--init-file":
			i++
		case strings.HasPrefix(w, "--"):
		case len(w) > 1 && (w[0] == '-' || w[0] == '+'):
			inline = inline || strings.ContainsRune(w[1:], 'c')
			stdin = stdin || strings.ContainsRune(w[1:], 's')
			if strings.ContainsAny(w[1:], "oO") {
				i++ // -o NAME, -eo pipefail, -O extglob
			}
		default:
			return inline, true, stdin
		}
	}
	return inline, false, stdin
}

// hidesText reports whether the redaction would hide part of t (its plain
// expansions read as paths: "Bearer $T" hides nothing of the text's own).
func hidesText(t string) bool {
	lit := plainExpansions().ReplaceAllString(t, "/")
	return redactSecrets(lit, textMode{shell: true, keysShown: true}) != lit
}

// mayBeCode reports whether an argument's text may be a command line a
// program hands to a shell (git --upload-pack='…', make --eval='…', tar
// --checkpoint-action=exec='…', sqlite3 '.shell …') that makes what it
// hides code: a shell's operators or substitutions (… | cut -d= -f2 | sh),
// other than in a JSON document. More words alone do not: a hidden value
// is inert (redact_inert.go), at most a name looked up on the PATH.
func mayBeCode(t string) bool {
	u := plainExpansions().ReplaceAllString(t, "x")
	if strings.ContainsAny(u, "`$") {
		return true
	}
	ops := strings.ContainsAny(u, "\n|;<>()") || strings.Contains(u, "& ") || strings.Contains(u, "&&") || strings.HasSuffix(u, "&")
	return ops && !json.Valid([]byte(u)) // (a URL's & is no operator)
}

// braced reports whether bash expands braces in the word (the parser makes
// no BraceExp node unless asked: syntax.SplitBraces, here on a copy).
func braced(w *syntax.Word) bool {
	if !slices.ContainsFunc(w.Parts, func(p syntax.WordPart) bool {
		l, ok := p.(*syntax.Lit)
		return ok && strings.Contains(l.Value, "{")
	}) {
		return false
	}
	return syntax.SplitBraces(&syntax.Word{Parts: slices.Clone(w.Parts)})
}
