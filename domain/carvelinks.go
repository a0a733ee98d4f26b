package domain

import (
	"cmp"
	"slices"
	"strings"
)

// A carve-out (a deny, a protected or sensitive path, a profile's read
// narrowing a writable root) written through a symlink is resolved afresh
// at every decision and spawn, and a link the command of one turn holds
// (pinned while it runs) another turn's command, under a profile that
// carves the same place by its own path, may remove between two commands:
// the carve-out then lies at a missing path and where it led is open (the
// fifty-seventh review). So where each led when the snapshot was selected
// is bound into the snapshot as a copy of the carve-out there, an entry or
// a rule with LinkedFrom naming the path it copies; a copy only narrows.

// CarveLinkPaths returns the paths of s's carve-outs whose symlinks the
// engine resolves when s is selected (each once, sorted): every carve-out
// entry's resolved path and every deny or read rule's literal path (a
// glob's literal prefix). Copies are left out.
func CarveLinkPaths(s *TurnExecutionSecuritySnapshot) []string {
	fs := &s.Sandbox.Filesystem
	if fs.Unrestricted && len(fs.Entries) == 0 {
		return nil
	}
	var out []string
	for i := range fs.Entries {
		e := &fs.Entries[i]
		if !carvesByLink(e) {
			continue
		}
		out = append(out, CleanPath(cmp.Or(e.ResolvedPath, e.Path)))
	}
	for i := range fs.Rules {
		if p, ok := ruleLinkPath(&fs.Rules[i]); ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// carvesByLink reports whether e is a carve-out whose copy where its links
// led narrows: a deny, a sensitive path without a pattern, a protected path
// that is read-only (a protected path with write access only pins).
func carvesByLink(e *FilesystemEntry) bool {
	if e.LinkedFrom != "" || !e.IsCarve() || strings.Contains(e.Path, "*") {
		return false
	}
	return e.Kind != PathProtected || e.Access != AccessWrite
}

// ruleLinkPath is the path of r's literal part, when r narrows (deny or
// read) and is not a copy.
func ruleLinkPath(r *PathRule) (string, bool) {
	if r.LinkedFrom != "" || (r.Access != AccessDeny && r.Access != AccessRead) || r.Overlay {
		return "", false
	}
	if !r.Glob {
		return CleanPath(r.Pattern), true
	}
	p := literalPrefix(r.Pattern)
	return p, p != "/"
}

// BindCarveLinks adds to s, for each carve-out path p of CarveLinkPaths(s)
// that links says led elsewhere (each target other than p), a copy of its
// entries and rules there. A read rule's copy is added only where the
// rules grant write (a copy never widens); every other copy only narrows
// by construction (a deny, a sensitive path and a protected one cap what
// they cover, and a more specific grant reopens below a deny copy exactly
// as below the deny it copies).
func BindCarveLinks(s *TurnExecutionSecuritySnapshot, links map[string][]string) {
	if len(links) == 0 {
		return
	}
	fs := &s.Sandbox.Filesystem
	targets := func(p string) []string {
		var out []string
		for _, t := range links[p] {
			if t = CleanPath(t); t != p && !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
		return out
	}
	var es []FilesystemEntry
	for i := range fs.Entries {
		e := &fs.Entries[i]
		if !carvesByLink(e) {
			continue
		}
		p := CleanPath(cmp.Or(e.ResolvedPath, e.Path))
		for _, t := range targets(p) {
			c := *e
			c.Path, c.ResolvedPath, c.LinkedFrom = t, t, p
			c.Within, c.LedTo = "", ""
			if !slices.Contains(fs.Entries, c) && !slices.Contains(es, c) {
				es = append(es, c)
			}
		}
	}
	var rs []PathRule
	for i := range fs.Rules {
		r := &fs.Rules[i]
		p, ok := ruleLinkPath(r)
		if !ok {
			continue
		}
		for _, t := range targets(p) {
			c := *r
			at := t
			if r.Glob {
				at = escapeGlob(t) // a target named "[1]" is no character class (the sixty-third review)
			}
			c.Pattern, c.LinkedFrom = CleanPath(at+"/"+strings.TrimPrefix(CleanPath(r.Pattern), p)), p
			if c.Access == AccessRead && (c.Glob || ResolvePathRules(fs.Rules, t).Access != AccessWrite) {
				continue // where it led is not writable: a read copy would not narrow
			}
			if !slices.Contains(fs.Rules, c) && !slices.Contains(rs, c) {
				rs = append(rs, c)
			}
		}
	}
	fs.Entries = append(fs.Entries, es...)
	fs.Rules = append(fs.Rules, rs...)
}

// CarveLinksOf returns where the carve-outs of s led when it was selected
// (its copies' LinkedFrom and paths), for a snapshot selected again in the
// turn or for a child turn's: a link removed since keeps its copy.
func CarveLinksOf(s *TurnExecutionSecuritySnapshot) map[string][]string {
	var out map[string][]string
	add := func(from, to string) {
		if out == nil {
			out = map[string][]string{}
		}
		if !slices.Contains(out[from], to) {
			out[from] = append(out[from], to)
		}
	}
	for _, e := range s.Sandbox.Filesystem.Entries {
		if e.LinkedFrom != "" {
			add(e.LinkedFrom, CleanPath(cmp.Or(e.ResolvedPath, e.Path)))
		}
	}
	for _, r := range s.Sandbox.Filesystem.Rules {
		if r.LinkedFrom != "" {
			to := r.Pattern
			if r.Glob {
				to = unescapedPrefix(r.Pattern)
			}
			add(r.LinkedFrom, CleanPath(to))
		}
	}
	return out
}

// MergeCarveLinks returns a with b's targets added.
func MergeCarveLinks(a, b map[string][]string) map[string][]string {
	if len(b) == 0 {
		return a
	}
	out := make(map[string][]string, len(a)+len(b))
	for k, v := range a {
		out[k] = slices.Clone(v)
	}
	for k, v := range b {
		for _, t := range v {
			if !slices.Contains(out[k], t) {
				out[k] = append(out[k], t)
			}
		}
	}
	return out
}

// escapeGlob escapes in p what path.Match reads as a pattern.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// unescapedPrefix is the leading components of a glob pattern that hold no
// unescaped wildcard, unescaped (a copy's target: escapeGlob's inverse).
func unescapedPrefix(pat string) string {
	var out []string
	for _, c := range strings.Split(strings.TrimPrefix(pat, "/"), "/") {
		var b strings.Builder
		lit := true
		for i := 0; i < len(c) && lit; i++ {
			switch c[i] {
			case '\\':
				if i+1 < len(c) {
					i++
					b.WriteByte(c[i])
				}
			case '*', '?', '[':
				lit = false
			default:
				b.WriteByte(c[i])
			}
		}
		if !lit {
			break
		}
		out = append(out, b.String())
	}
	return CleanPath("/" + strings.Join(out, "/"))
}
