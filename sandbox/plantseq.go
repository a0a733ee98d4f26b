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
// state, with the file of instructions it carries out when the user
// continues: an "exec" instruction runs a shell command on the host.
var sequencerDirs = [][2]string{{"rebase-merge", "git-rebase-todo"}, {"sequencer", "todo"}}

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
		dir, todo := sd[0], sd[1]
		var st unix.Stat_t
		if unix.Fstatat(gfd, dir, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		changed := !time.Unix(st.Ctim.Unix()).Before(w.since)
		var tst unix.Stat_t
		if unix.Fstatat(gfd, dir+"/"+todo, &tst, unix.AT_SYMLINK_NOFOLLOW) == nil && !time.Unix(tst.Ctim.Unix()).Before(w.since) {
			changed = true
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
			continue
		}
		q := Quarantine{Path: joinPath(g, dir), Reason: reason}
		if name, err := setAside(gfd, dir); err != nil {
			q.Error = err.Error()
		} else {
			q.MovedTo = joinPath(g, name)
		}
		w.found = append(w.found, q)
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
