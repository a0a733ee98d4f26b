package sandbox

import (
	"golang.org/x/sys/unix"

	"turnstile/domain"
)

// processLinkError is the refusal of a path whose resolution goes through a
// link whose target depends on the process that resolves it
// (domain.ProcessRelative, or any symlink of a procfs mounted elsewhere
// than /proc): this process would resolve it to its own cwd, root, open
// files or standard streams, and not to the ones of the process that will
// open the path.
type processLinkError struct {
	// link is the link met.
	link string
}

func (e *processLinkError) Error() string {
	return e.link + " leads somewhere else in each process"
}

// onProcfs reports whether the directory dir is on a procfs.
func onProcfs(dir string) bool {
	var st unix.Statfs_t
	return unix.Statfs(dir, &st) == nil && st.Type == unix.PROC_SUPER_MAGIC
}

// isProcessLink reports whether err is a *processLinkError (canonicalWalk
// returns it as it is).
func isProcessLink(err error) bool {
	_, ok := err.(*processLinkError)
	return ok
}

// processLinkRefusal refuses, as invalid_path, a path whose resolution goes
// through a process-relative link: met while canonicalising (cerr), or named
// by the lexical path or by the canonical one (canon, when resolved; a
// missing pid's entry is not walked). The decisions are about what another
// process (the runtime's file tool) will open: the server resolving
// /proc/self/cwd finds its own working directory, and would judge a write
// there as one in the workspace it was started in.
func processLinkRefusal(lexical, canon string, resolved bool, cerr error) *Refusal {
	link := ""
	if pl, ok := cerr.(*processLinkError); ok {
		link = pl.link
	} else if l, ok := domain.ProcessRelative(lexical); ok {
		link = l
	} else if l, ok := domain.ProcessRelative(canon); ok && resolved {
		link = l
	}
	if link == "" {
		return nil
	}
	return refuse(CodeInvalidPath, lexical, "the path goes through %s, a link that leads somewhere else in each process "+
		"(the working directory, root, open files or standard streams of the process that opens it): "+
		"the tool that opens the path does not get what this server would judge; name the file by its real path", link)
}
