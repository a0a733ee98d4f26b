package domain

import (
	"strconv"
	"strings"
)

// unifiedDiffPaths returns the files a unified diff (`diff -u`, `git diff`)
// writes: the old and new names of its `--- ` / `+++ ` headers and of git's
// `rename from/to` and `copy to` lines (a pure rename or mode change has no
// ---/+++ headers, so `diff --git a/X b/Y` names them too). Hunks are
// skipped by their line counts, so a removed line that starts with "-- "
// (a diff line "--- …") is never read as a header. `/dev/null` (an added or
// deleted file's other side) names no file; git's a/ and b/ prefixes are
// stripped when both sides carry them. ok is false when text is not a
// unified diff (no header at all).
func unifiedDiffPaths(text string) (paths []string, ok bool) {
	var oldName string
	var oldLeft, newLeft int // lines of the current hunk still to skip
	name := func(raw string) string {
		raw = strings.TrimRight(raw, "\r")
		if i := strings.IndexByte(raw, '\t'); i >= 0 { // "--- name\ttimestamp"
			raw = raw[:i]
		}
		return strings.TrimSpace(raw)
	}
	add := func(p string) {
		if p != "" && p != "/dev/null" {
			paths = append(paths, p)
		}
	}
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(line, "\\"): // "\ No newline at end of file"
			case strings.HasPrefix(line, "-"):
				oldLeft--
			case strings.HasPrefix(line, "+"):
				newLeft--
			default:
				oldLeft--
				newLeft--
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "--- "):
			oldName, ok = name(line[4:]), true
		case strings.HasPrefix(line, "+++ "):
			newName := name(line[4:])
			// git's a/ and b/ prefixes, stripped when both sides carry
			// them (or the other side is /dev/null).
			if (strings.HasPrefix(oldName, "a/") || oldName == "/dev/null") && (strings.HasPrefix(newName, "b/") || newName == "/dev/null") {
				oldName, newName = strings.TrimPrefix(oldName, "a/"), strings.TrimPrefix(newName, "b/")
			}
			add(oldName)
			add(newName)
			oldName, ok = "", true
		case strings.HasPrefix(line, "@@ "):
			oldLeft, newLeft = hunkCounts(line)
		case strings.HasPrefix(line, "rename from "), strings.HasPrefix(line, "rename to "), strings.HasPrefix(line, "copy to "):
			_, rest, _ := strings.Cut(line, " ")
			_, rest, _ = strings.Cut(rest, " ")
			add(strings.TrimSpace(rest))
			ok = true
		case strings.HasPrefix(line, "diff --git a/"):
			if a, b, found := strings.Cut(line[len("diff --git a/"):], " b/"); found {
				add(a)
				add(b)
				ok = true
			}
		}
	}
	return sortedUnique(paths), ok
}

// hunkCounts reads "@@ -l[,s] +l[,s] @@": the old and new line counts (1
// when the count is omitted).
func hunkCounts(line string) (int, int) {
	fields := strings.Fields(line)
	if len(fields) < 3 {
		return 0, 0
	}
	count := func(f string) int {
		_, s, found := strings.Cut(f[1:], ",")
		if !found {
			return 1
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return 0
		}
		return n
	}
	return count(fields[1]), count(fields[2])
}
