package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// sequencerDirs are where git keeps a stopped rebase's or cherry-pick's
// state: the file of instructions it carries out when the user continues
// (an "exec" instruction runs a shell command on the host), and the file
// naming the merge strategy it runs for the next pick ("git merge-<name>":
// a name with a slash is a path from the work tree's top).
var sequencerDirs = [][3]string{{"rebase-merge", "git-rebase-todo", "strategy"}, {"sequencer", "todo", "opts"}}

// builtinStrategies are the merge strategies git carries out itself.
var builtinStrategies = map[string]bool{"ort": true, "recursive": true, "resolve": true, "octopus": true, "ours": true, "subtree": true}

// maxTodoSize bounds the instructions read; a larger file is set aside
// unread.
const maxTodoSize = 1 << 20

// sequencerState sets aside (setAside) the
// stopped rebase or cherry-pick state of the git dir at gfd (path g) that
// the command wrote with an instruction that runs a command, in every
// repository, those it ran with held included (their state stays writable
// so that a rebase works): `git rebase --continue` would otherwise run it
// outside the sandbox. A rebase the command began and left stopped without
// such an instruction stays as it is.
func (w *plantWalk) sequencerState(gfd int, g string) {
	for _, sd := range sequencerDirs {
		dir, todo, strategy := sd[0], sd[1], sd[2]
		var st unix.Stat_t
		if unix.Fstatat(gfd, dir, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		changed := !time.Unix(st.Ctim.Unix()).Before(w.since)
		var tst unix.Stat_t
		for _, f := range []string{todo, strategy} {
			if unix.Fstatat(gfd, dir+"/"+f, &tst, unix.AT_SYMLINK_NOFOLLOW) == nil && !time.Unix(tst.Ctim.Unix()).Before(w.since) {
				changed = true
			}
		}
		if !changed {
			continue
		}
		reason := ""
		switch b, err := readSmallAt(gfd, dir+"/"+todo, maxTodoSize); {
		case errors.Is(err, unix.ENOENT):
		case err != nil:
			reason = todo + ": " + err.Error()
		default:
			reason = todoRunsCommands(b)
		}
		if reason == "" && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			reason = dir + " is not a directory"
		}
		if reason == "" {
			reason = strategyRuns(gfd, dir+"/"+strategy, strategy == "opts")
		}
		if reason == "" {
			continue
		}
		w.found = append(w.found, setAsideIn(gfd, g, dir, reason))
	}
}

// todoRunsCommands returns why a rebase or cherry-pick instruction file
// runs a command (an exec or x line, however indented, commented out
// included: the comment character is the config's), or "".
func todoRunsCommands(b []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), maxTodoSize)
	for sc.Scan() {
		f := strings.Fields(strings.TrimLeft(sc.Text(), "#; \t"))
		if len(f) > 0 && (strings.EqualFold(f[0], "exec") || strings.EqualFold(f[0], "x")) {
			return "an instruction that runs a command: " + strings.Join(f, " ")
		}
	}
	if sc.Err() != nil {
		return "instructions not read: " + sc.Err().Error()
	}
	return ""
}

// strategyRuns returns why the strategy file (or, in opts, config form,
// its strategy keys) names a merge strategy that is not one of git's own,
// or "".
func strategyRuns(gfd int, file string, opts bool) string {
	b, err := readSmallAt(gfd, file, maxTodoSize)
	if errors.Is(err, unix.ENOENT) {
		return ""
	}
	if err != nil {
		return file + ": " + err.Error()
	}
	var names []string
	if !opts {
		names = []string{strings.TrimSpace(string(b))}
	} else {
		// Only the form git writes: "[options]", then "\tkey = value".
		for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if line == "[options]" && i == 0 {
				continue
			}
			k, v, ok := strings.Cut(strings.TrimPrefix(line, "\t"), " = ")
			if i == 0 || !ok || !strings.HasPrefix(line, "\t") || k == "" || strings.Trim(k, "abcdefghijklmnopqrstuvwxyz-") != "" {
				return file + ": a line not in the form git writes"
			}
			if k == "strategy" {
				names = append(names, v)
			}
		}
	}
	for _, n := range names {
		if !builtinStrategies[n] {
			return "a merge strategy that is not git's own: " + n
		}
	}
	return ""
}
