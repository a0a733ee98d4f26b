package domain

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// A shell command that computes the program it runs (${T#*=}, "$3", $c
// after read, `…`, $(…), eval "$x", or a script piped into a shell) can
// run any part of its own text, whatever a pattern would hide there: a
// value cut out of "password=…", "Authorization: Bearer …" or a JSON
// token member, handed to set -- or read from a pipe, was the program
// the shell ran, hidden from the person asked (the hundred-and-fourth
// review; the forty-second to ninety-ninth found the same one form at a
// time). Such a command is shown whole: nothing of it, of its arguments or
// of its environment's values is hidden (computesProgram).

// wholeValues, a key of an exposed set, says every environment value is
// shown as it is (envDetail): the command computes its program.
const wholeValues = "\x00whole"

// codeWords run their arguments (or the file they name) as the shell's
// own code, and runners run the next word that is not an option or an
// assignment as a program.
var (
	codeWords = []string{"eval", "source", ".", "trap"}
	runners   = []string{"env", "sudo", "doas", "su", "watch", "strace", "ltrace", "ionice", "taskset", "unshare", "nsenter", "flock", "script", "parallel", "find", "busybox", "runuser", "setpriv", "chrt", "prlimit", "systemd-run"}
)

// programSetters are words whose argument chooses where a program the
// text names is found: a PATH assigned, a directory changed to (cd
// "${T#*=}"; ./x ran a hidden directory's x).
var programSetters = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[\s;&|(\x60"'])(?:PATH=|(?:cd|pushd)\s+)["']?[^\s;&|]*[$\x60]`)
})

// codeRunners matches a program run from a language's own code (system(),
// popen(), exec…(), spawn…(), subprocess, qx), or a process substitution
// sourced or given to a shell: what it runs is text the command computes.
var codeRunners = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`system\s*\(|popen\s*\(|exec\w*\s*\(|spawn\w*\s*\(|subprocess|\bqx\s*[({/]|(?:^|[\s;&|(])(?:source|\.|` + "(?:\\S*/)?(?:sh|bash|dash|zsh|ksh)" + `)\s+<\(`)
})

// pipeToShell matches a pipe or a here-string into a shell, which reads
// what comes to it as its script.
var pipeToShell = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:\||<<<)\s*\\?(?:\S*/)?(?:` + strings.Join(shellNames, "|") + `)(?:\s|$|\))|\b(?:` + strings.Join(shellNames, "|") + `)(?:\s+-\S+)*\s*<<<`)
})

// pipedScriptHides reports whether a pipeline of s pipes (or gives as a
// here-string) into a shell an expansion or what a redaction hides in it:
// echo "Bearer P" | awk '{print $3}' | sh ran P, and so did
// T="password=P"; bash <<< "${T#*=}". A script downloaded and piped
// (curl -fsS URL | sh) is not the text's own.
func pipedScriptHides(s string) bool {
	for _, m := range pipeToShell().FindAllStringIndex(s, -1) {
		start := strings.LastIndexAny(s[:m[0]], ";&\n") + 1 // the pipeline's
		end := nextLineEnd(s, m[1])
		line := s[start:end]
		if strings.ContainsAny(line, "$`") || redactSecrets(line, textMode{shell: true, keysShown: true}) != line {
			return true
		}
	}
	return false
}

// computesProgram reports whether the shell text s runs a program (or a
// script) that an expansion or a substitution computes: a word that is a
// program (programWord), or follows a word that runs it (eval, source,
// env, sudo, …), starts with '$' or '`' (after a quote, at most); a PATH
// or a cd from an expansion; a language's system(); or a line that pipes
// what it hides into a shell (pipedScriptHides).
func computesProgram(s string) bool {
	s = strings.ReplaceAll(s, "\\\n", "")
	if programSetters().MatchString(s) || codeRunners().MatchString(s) || pipedScriptHides(s) {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '$' && s[i] != '`' {
			continue
		}
		ws := i
		if ws > 0 && (s[ws-1] == '"' || s[ws-1] == '\'') {
			ws--
		}
		if ws > 0 && strings.IndexByte(" \t\n;&|()<>`{", s[ws-1]) < 0 {
			continue // within a word: a part of its argument
		}
		if programWord(s, ws) || afterRunner(s, ws) {
			return true
		}
	}
	return false
}

// afterRunner reports whether the word of s at ws follows, past options
// and assignments, a word that runs it as code or as a program, itself a
// program the text runs.
func afterRunner(s string, ws int) bool {
	p := s[:ws]
	for {
		p = strings.TrimRight(p, " \t")
		k := len(p)
		for k > 0 && strings.IndexByte(" \t\n;&|()`", p[k-1]) < 0 {
			k--
		}
		prev := p[k:]
		if prev == "" {
			return false
		}
		base := path.Base(strings.Trim(prev, `"'\`))
		switch {
		case slices.Contains(codeWords, prev) || slices.Contains(runners, base) || slices.Contains(prefixCommands, base):
			return programWord(s, k) // the runner itself a program (not ls . "$d")
		case slices.Contains([]string{"-exec", "-execdir", "-ok", "-okdir"}, prev):
			return true // find's
		case strings.HasPrefix(prev, "-"), assignmentWord(prev):
			p = p[:k]
		default:
			return false
		}
	}
}
