package domain

import "strings"

// ProcessRelative reports whether the clean absolute path p is, or lies
// below, a link whose target depends on the process that resolves it, and
// returns that link. Such a path cannot be judged by another process: the
// server resolving "/proc/self/cwd" finds its own working directory, while
// the runtime's file tool opening the same path finds its own, and a
// decision about one says nothing about the other. The links are:
//
//   - /proc/self and /proc/thread-self (the resolving process and thread);
//   - /dev/fd, /dev/stdin, /dev/stdout and /dev/stderr (links into
//     /proc/self/fd);
//   - the magic links of a process or thread directory, /proc/<pid>/… and
//     /proc/<pid>/task/<tid>/…: cwd, root and exe, and the directories of
//     links fd, map_files and ns (a pid names another process in another
//     PID namespace, and the links jump to whatever the process holds).
//
// Other entries of a process directory (status, stat, cmdline…) are files,
// not links; the sensitive ones (environ, mem) are SensitiveSystemPaths.
func ProcessRelative(p string) (link string, ok bool) {
	switch {
	case strings.HasPrefix(p, "/proc/"):
	case strings.HasPrefix(p, "/dev/"):
		for _, l := range []string{"/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr"} {
			if PathWithin(p, l) {
				return l, true
			}
		}
		return "", false
	default:
		return "", false
	}
	rest := p[len("/proc/"):]
	el, rest, _ := strings.Cut(rest, "/")
	switch {
	case el == "self" || el == "thread-self":
		return "/proc/" + el, true
	case !allDigits(el):
		return "", false
	}
	base := "/proc/" + el
	for {
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		switch name {
		case "cwd", "root", "exe", "fd", "map_files", "ns":
			return base + "/" + name, true
		case "task":
			tid, more, _ := strings.Cut(rest, "/")
			if !allDigits(tid) || strings.HasPrefix(base, "/proc/"+el+"/task/") {
				return "", false
			}
			base, rest = base+"/task/"+tid, more
			continue
		}
		return "", false
	}
}

// allDigits reports whether s is a non-empty run of ASCII digits (a pid).
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
