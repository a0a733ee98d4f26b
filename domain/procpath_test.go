package domain

import "testing"

// TestProcessRelative: the links whose target depends on the process that
// resolves them, and what lies below them, are named; the rest of /proc
// and /dev is not.
func TestProcessRelative(t *testing.T) {
	for _, c := range []struct{ path, link string }{
		{"/proc/self", "/proc/self"},
		{"/proc/self/cwd/a.txt", "/proc/self"},
		{"/proc/self/status", "/proc/self"},
		{"/proc/thread-self/fd/3", "/proc/thread-self"},
		{"/dev/fd", "/dev/fd"},
		{"/dev/fd/0", "/dev/fd"},
		{"/dev/stdin", "/dev/stdin"},
		{"/dev/stdout", "/dev/stdout"},
		{"/dev/stderr", "/dev/stderr"},
		{"/proc/42/cwd", "/proc/42/cwd"},
		{"/proc/42/cwd/x/y", "/proc/42/cwd"},
		{"/proc/42/root/etc/passwd", "/proc/42/root"},
		{"/proc/42/exe", "/proc/42/exe"},
		{"/proc/42/fd", "/proc/42/fd"},
		{"/proc/42/fd/3", "/proc/42/fd"},
		{"/proc/42/map_files/7f00-7f01", "/proc/42/map_files"},
		{"/proc/42/ns/net", "/proc/42/ns"},
		{"/proc/42/task/43/cwd/a", "/proc/42/task/43/cwd"},
		{"/proc/42/task/43/fd/1", "/proc/42/task/43/fd"},
	} {
		if got, ok := ProcessRelative(c.path); !ok || got != c.link {
			t.Errorf("ProcessRelative(%q) = %q, %v; want %q", c.path, got, ok, c.link)
		}
	}
	for _, p := range []string{
		"/", "/proc", "/proc/cpuinfo", "/proc/42", "/proc/42/status", "/proc/42/fdinfo/3", "/proc/42/environ",
		"/proc/42/task", "/proc/42/task/43", "/proc/42/task/43/status", "/proc/42/task/43/task/44/cwd", "/proc/4x2/cwd",
		"/proc/sys/kernel/hostname", "/dev", "/dev/null", "/dev/fdx", "/dev/stdinx", "/home/u/proc/self/cwd", "/devfd/0",
	} {
		if got, ok := ProcessRelative(p); ok {
			t.Errorf("ProcessRelative(%q) = %q; want none", p, got)
		}
	}
}
