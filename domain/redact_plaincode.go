package domain

import (
	"path"
	"slices"
	"strings"
)

// Code that reaches an interpreter other than as the program of a call
// (the hundred-and-ninety-third review). The plain check asked, of a
// program past the runners it knows, whether it is one of codeReaders by
// its exact name and is given inline code by its first options. An
// interpreter named with its version (python3.11, perl5.36.0, tclsh8.6:
// Debian installs each), one a wrapper runs (find … -exec python3 -c …),
// one given its code after an option's value (python3 -W error -c …), and
// a module that runs code it is given (python3 -m timeit -s CODE) were
// none, and in a text that hides a value its code may read from the
// environment by a name it builds (setsSecret), what it wrote to or sent
// to was hidden.

// readerBase returns the program's base name, or, for a reader of code
// named with its version (python3.11, perl5.36.0, tclsh8.6, lua5.4,
// bash5.2), the name without it: the same program to every rule that
// knows codeReaders.
func readerBase(base string) string {
	if slices.Contains(codeReaders, base) {
		return base
	}
	stem := strings.TrimRight(base, "0123456789.")
	if stem != base && stem != "" && stem != "." && slices.Contains(codeReaders, stem) {
		return stem
	}
	return base
}

// operandCode are the readers of code whose program is their first
// operand, not an option's value (awk 'BEGIN{…}', sed 'e …', m4).
var operandCode = []string{"awk", "gawk", "mawk", "nawk", "sed", "gsed", "m4"}

// codeGivenIn reports whether a call's words give an interpreter code in
// view anywhere, not only as its program: an interpreter (readerBase,
// interpreter) given inline code or a module's arguments (givesCode), or
// one of operandCode; in the words, or in the words of a word or of its
// value after '=' (tar --to-command='python3 -c …', chronic sh -c 'perl
// -e …').
func codeGivenIn(words []string) bool {
	if codeGivenSeq(words) {
		return true
	}
	for _, w := range words {
		if !strings.ContainsAny(w, " \t\n=") {
			continue
		}
		if codeGivenSeq(strings.Fields(w)) {
			return true
		}
		if _, v, ok := strings.Cut(w, "="); ok && codeGivenSeq(strings.Fields(v)) {
			return true
		}
	}
	return false
}

// codeGivenSeq is codeGivenIn of one sequence of words.
func codeGivenSeq(words []string) bool {
	for i, w := range words {
		b := readerBase(path.Base(w))
		if slices.Contains(operandCode, b) || interpreter(b) && givesCode(words[i+1:]) {
			return true
		}
	}
	return false
}

// notInterpreters are the codeReaders that take no code of a language by
// an option: they read a command line (sudo, su, script, watch: a
// command string, which commandStringTakers judge), their input (xargs,
// read, at), or a file (source); their options (sudo -E, read -p, crontab
// -e) are no code.
var notInterpreters = []string{"eval", "source", ".", "xargs", "parallel", "sudo", "doas", "su", "at", "batch",
	"crontab", "tmux", "screen", "script", "watch", "read", "mapfile", "readarray", "ssh"}

// interpreter reports whether b names a shell or a language's interpreter
// (one of codeReaders but notInterpreters).
func interpreter(b string) bool {
	return slices.Contains(codeReaders, b) && !slices.Contains(notInterpreters, b)
}

// givesCode reports whether an interpreter's arguments give it code, read
// past its options and their values: an option of inlineCode, a short
// option holding 'c' (python3 -c), 'e' or 'E' (perl -le, ruby -ne) or 'p'
// (node -pe), or a module given arguments (python3 -m timeit -s CODE: timeit,
// pdb -c and others run code they are given; a module alone, python3 -m
// http.server, is no more code in view than a script). A word after a
// short option of one letter (-W error, -X dev, -I lib) is taken for its
// value, so that the reading goes on past it (a script after -u is read
// as one too: conservative); the first other word is the script, whose
// arguments are its own.
func givesCode(rest []string) bool {
	value := false // the word may be the previous option's value
	for i, w := range rest {
		if len(w) < 2 || w[0] != '-' {
			if !value {
				return false
			}
			value = false
			continue
		}
		if w == "--" {
			return false
		}
		long := strings.HasPrefix(w, "--")
		if slices.Contains(inlineCode, w) || !long && strings.ContainsAny(w[1:], "ceEp") {
			return true
		}
		if m := strings.IndexByte(w, 'm'); !long && m > 0 {
			// -m MODULE ARGS, -mMODULE ARGS, -Im MODULE ARGS.
			args := rest[i+1:]
			if m == len(w)-1 && len(args) > 0 {
				args = args[1:]
			}
			return len(args) > 0
		}
		value = len(w) == 2
	}
	return false
}
