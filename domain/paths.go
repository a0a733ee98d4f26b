package domain

import "strings"

// CleanPath normalises an absolute path lexically: repeated slashes and "."
// are dropped, ".." pops one element and never climbs above "/". A relative
// input is treated as relative to "/". The result always starts with "/" and
// has no trailing slash (except "/" itself).
func CleanPath(p string) string {
	if p == "" || p == "/" {
		return "/"
	}
	// Fast path: already clean.
	if isClean(p) {
		return p
	}
	parts := make([]string, 0, strings.Count(p, "/")+1)
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "", ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, seg)
		}
	}
	return "/" + strings.Join(parts, "/")
}

func isClean(p string) bool {
	if p[0] != '/' || (len(p) > 1 && p[len(p)-1] == '/') {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		rest := p[i+1:]
		if strings.HasPrefix(rest, "/") || rest == "." || strings.HasPrefix(rest, "./") ||
			rest == ".." || strings.HasPrefix(rest, "../") {
			return false
		}
	}
	return true
}

// ResolvePath joins a relative p to cwd and normalises the result lexically.
// An empty p resolves to cwd.
func ResolvePath(cwd, p string) string {
	if strings.HasPrefix(p, "/") {
		return CleanPath(p)
	}
	if cwd == "" {
		cwd = "/"
	}
	return CleanPath(cwd + "/" + p)
}

// PathWithinFold is PathWithin with each component compared in any case
// (strings.EqualFold): where a file system finds names in any case (WSL's
// drvfs, vfat and exfat, an ext4 or f2fs casefold directory) path opens
// what root names. It only ever narrows: callers use it to carry a
// protected item or a deny to the other spellings of its path, never a
// grant.
func PathWithinFold(path, root string) bool {
	if PathWithin(path, root) {
		return true
	}
	if !strings.HasPrefix(path, "/") || !strings.HasPrefix(root, "/") || root == "/" {
		return false
	}
	// Component by component, without splitting (every file decision
	// asks this of each protected item).
	p, r := path[1:], root[1:]
	for {
		rc, rrest, rmore := strings.Cut(r, "/")
		if p == "" && path == "/" {
			return false
		}
		pc, prest, pmore := strings.Cut(p, "/")
		if !FoldEqual(pc, rc) {
			return false
		}
		if !rmore {
			return true
		}
		if !pmore {
			return false
		}
		p, r = prest, rrest
	}
}

// PathWithin reports whether path is root or below it, on a path-element
// boundary. Both must be clean absolute paths.
func PathWithin(path, root string) bool {
	if root == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == root || (strings.HasPrefix(path, root) && path[len(root)] == '/')
}
