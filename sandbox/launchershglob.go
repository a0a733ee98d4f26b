package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Launcher patterns as the shell reads them, globbed over listings read
// once per view.

// shellGlob rewrites a pattern in the shell's (and mise's glob crate's)
// syntax as filepath.Match reads it: a bracket expression's leading "!"
// is negation there ([!_]*.sh is every .sh not starting with "_"), a set
// to Go, which negates with "^" (the hundred-and-fifty-eighth review: the
// person's scripts it matched stayed writable, a new one was not watched);
// one holding a class ([[:alpha:]]) becomes "?", any character (more
// matches watched, none missed); a "]" first in a set is a member; an
// unclosed "[" is itself; an extglob group is "*". shellGlobMeta reports
// whether a path element is a pattern to the shell.
func shellGlob(p string) string {
	if !strings.Contains(p, "[") && !strings.Contains(p, "(") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' && i+1 < len(p) {
			b.WriteString(p[i : i+2])
			i++
			continue
		}
		if strings.IndexByte("?*+@!", c) >= 0 && i+1 < len(p) && p[i+1] == '(' {
			// An extglob group (!(_*).sh, @(a|b).sh, with shopt -s
			// extglob): any name there, more matches watched than bash
			// makes, none missed (the hundred-and-fifty-ninth review).
			// The group's own ")", counting nested groups
			// (!(_*|@(skip)).sh: the hundred-and-sixty-first review);
			// one never closed makes the rest of the element any name.
			end, depth := -1, 0
			for k := i + 1; k < len(p) && p[k] != '/'; k++ {
				if p[k] == '(' {
					depth++
				} else if p[k] == ')' {
					if depth--; depth == 0 {
						end = k
						break
					}
				}
			}
			if end < 0 {
				end = strings.IndexByte(p[i:], '/')
				if end < 0 {
					end = len(p)
				} else {
					end += i
				}
				b.WriteByte('*')
				i = end - 1
				continue
			}
			b.WriteByte('*')
			i = end
			continue
		}
		if c != '[' {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		neg := j < len(p) && (p[j] == '!' || p[j] == '^')
		if neg {
			j++
		}
		k, class := j, false
		if k < len(p) && p[k] == ']' {
			k++
		}
		for k < len(p) && p[k] != ']' && p[k] != '/' {
			if p[k] == '[' && k+1 < len(p) && strings.IndexByte(":=.", p[k+1]) >= 0 {
				end := strings.Index(p[k+2:], string(p[k+1])+"]")
				if end < 0 {
					break
				}
				k, class = k+2+end+2, true
				continue
			}
			k++
		}
		if k >= len(p) || p[k] != ']' {
			b.WriteString(`\[`) // no set: the shell reads "[" as itself
			continue
		}
		if class {
			b.WriteByte('?')
		} else {
			b.WriteByte('[')
			if neg {
				b.WriteByte('^')
			}
			body := p[j:k]
			for n, m := range []byte(body) {
				// "]" and "^" members, and a "-" first or last (a member
				// to the shell, a bad range to Go: the
				// hundred-and-fifty-ninth review's [a-z0-9_-]).
				if m == ']' || m == '^' || m == '-' && (n == 0 || n == len(body)-1) {
					b.WriteByte('\\')
				}
				b.WriteByte(m)
			}
			b.WriteByte(']')
		}
		i = k
	}
	return b.String()
}

// maxLauncherPatterns bounds the patterns one view globs, and
// maxLauncherGlobWork the names they are matched against (a name once per
// pattern that looks at its directory): past either the view refuses the
// commands (fsView.overflow) rather than leave a match writable. Each
// brace value of a word is a pattern, and a .envrc the command wrote in a
// subdirectory (read where the walk finds it) is the agent's to fill: 192
// patterns over one directory of 20,000 names cost a view build 194
// listings of it (the hundred-and-fifty-eighth review).
const (
	maxLauncherPatterns = 256
	maxLauncherGlobWork = 1 << 20
)

// glob is filepath.Glob over listings read once per view (a directory
// named by many patterns is listed once): the paths that match the
// clean absolute pattern p, sorted.
func (d *discovery) glob(p string) []string {
	if d.listings == nil {
		d.listings = map[string][]string{}
	}
	cur := []string{"/"}
	els := splitPath(p)
	for i, el := range els {
		var next []string
		for _, dir := range cur {
			if !hasGlobMeta(el) {
				next = append(next, joinPath(dir, el))
				continue
			}
			names, ok := d.listings[dir]
			if !ok {
				if f, err := os.Open(dir); err == nil {
					names, _ = f.Readdirnames(-1)
					f.Close()
					slices.Sort(names)
				}
				d.listings[dir] = names
			}
			if d.globWork += len(names); d.globWork > maxLauncherGlobWork {
				if d.v.overflow == "" {
					d.v.overflow = fmt.Sprintf("the launcher files' patterns in the writable roots would match more than %d names: their matches cannot all be watched", maxLauncherGlobWork)
				}
				return nil
			}
			for _, n := range names {
				if m, err := filepath.Match(el, n); err == nil && m {
					next = append(next, joinPath(dir, n))
				}
			}
		}
		if i < len(els)-1 {
			// Only directories (a link to one too) are looked into.
			next = slices.DeleteFunc(next, func(q string) bool {
				fi, err := os.Stat(q)
				return err != nil || !fi.IsDir()
			})
		}
		cur = next
	}
	return slices.DeleteFunc(cur, func(q string) bool {
		_, err := os.Lstat(q)
		return err != nil
	})
}

// shellGlobMeta reports whether the path element el is a pattern to the
// shell: a wildcard, a set, or an extglob group.
func shellGlobMeta(el string) bool {
	if strings.ContainsAny(el, "*?[") {
		return true
	}
	for _, g := range []string{"?(", "*(", "+(", "@(", "!("} {
		if strings.Contains(el, g) {
			return true
		}
	}
	return false
}
