package domain

import (
	"fmt"
	"net/url"
	pathpkg "path"
	"strconv"
	"strings"
)

// network classifies web_fetch and download_url.
func (c *classifier) network(entries []ScopeEntry) ([]ScopeEntry, error) {
	c.a.Kind = ActionNetwork
	raw := c.str("url")
	if raw == "" {
		return nil, &FieldError{Field: "arguments.url", Message: "required"}
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, &FieldError{Field: "arguments.url", Message: "must be an absolute URL"}
	}
	if err := whatwgPath("arguments.url", strings.TrimSpace(raw)); err != nil {
		return nil, err
	}
	method := strings.ToUpper(strings.TrimSpace(c.str("method")))
	if method == "" {
		method = "GET"
	}
	c.a.URL, c.a.Method = u, method
	scheme := strings.ToLower(u.Scheme)
	host := NormalizeHost(u.Hostname())
	origin := scheme + "://" + host
	if strings.Contains(host, ":") {
		origin = scheme + "://[" + host + "]"
	}
	if p := u.Port(); p != "" {
		origin += ":" + p
	}
	if sc := c.str("scope"); c.inv.ToolName == "web_fetch" && sc != "" {
		// Every request to the origin (the egress proxy's connections): a
		// scope of its own, so that a grant of one page and a grant of the
		// whole origin never stand for each other.
		if sc != "origin" {
			return nil, &FieldError{Field: "arguments.scope", Value: sc, Message: "must be origin (or absent)"}
		}
		entries = append(entries, ScopeEntry{"method", method}, ScopeEntry{"scheme", scheme}, ScopeEntry{"domain", host},
			ScopeEntry{"url_origin", origin}, ScopeEntry{"url_scope", "origin"})
		c.a.Summary = fmt.Sprintf("Any %s request to %s (every path)", method, origin)
		if method == "CONNECT" {
			// A tunnel carries any protocol to that port (SSH, SMTP, a
			// database's), not only HTTPS: the person is told so.
			hp := strings.TrimPrefix(origin, scheme+"://")
			if u.Port() == "" {
				hp += ":443"
			}
			c.a.Summary = fmt.Sprintf("A TCP tunnel to %s (CONNECT): any protocol, what it carries is not seen", hp)
		}
		c.detail("Origin", origin+" (every path)", true)
		return entries, nil
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	entries = append(entries,
		ScopeEntry{"method", method}, ScopeEntry{"scheme", scheme}, ScopeEntry{"domain", host},
		ScopeEntry{"url_origin", origin}, ScopeEntry{"url_path", path},
		ScopeEntry{"url_full_hash", c.inv.Key.Sum([]byte(u.String()))})
	c.a.Summary = fmt.Sprintf("%s %s%s", method, origin, path)
	// The query is shown as a command's URL's is (redactURL: each
	// parameter's name, its value's token hidden): a request that
	// triggers an action or carries data out in it read as a page to
	// read (the ninety-first review).
	shown := origin + path
	if u.RawQuery != "" || u.ForceQuery {
		shown += "?" + u.RawQuery
	}
	c.detail("URL", shown, true)
	if c.inv.ToolName == "download_url" {
		return c.download(entries, u, origin+path)
	}
	return entries, nil
}

// download adds download_url's destination write. Without a destination the
// file goes under the cwd, named by destination_hint or else by the last
// element of the URL's path ("download" when it has none); overwrite
// (default false), create_dirs (default true) and follow_redirects (default
// true) are recorded in the scope, since they change what the call does.
func (c *classifier) download(entries []ScopeEntry, u *url.URL, shown string) ([]ScopeEntry, error) {
	dest := c.str("destination", "path", "dest")
	if dest == "" {
		hint := c.str("destination_hint")
		if hint != "" && !plainFileName(hint) {
			return nil, &FieldError{Field: "arguments.destination_hint", Value: hint, Message: "must be a plain file name (no '/', not '.' or '..')"}
		}
		if hint == "" {
			hint = pathpkg.Base(u.Path)
			if !plainFileName(hint) {
				hint = "download"
			}
		}
		dest = hint
		entries = append(entries, ScopeEntry{"destination_hint", hint})
	}
	for _, o := range []struct {
		key string
		def bool
	}{{"overwrite", false}, {"create_dirs", true}, {"follow_redirects", true}} {
		v := o.def
		if raw, present := c.args[o.key]; present && raw != nil {
			b, ok := raw.(bool)
			if !ok {
				return nil, &FieldError{Field: "arguments." + o.key, Message: "must be a boolean"}
			}
			v = b
		}
		entries = append(entries, ScopeEntry{o.key, strconv.FormatBool(v)})
	}
	p, err := c.path(dest, AccessWrite)
	if err != nil {
		return nil, err
	}
	c.a.Also = ActionFileWrite
	c.a.Files = append(c.a.Files, FileOp{Path: p, Access: AccessWrite})
	c.a.Summary = fmt.Sprintf("Download %s to %s", shown, p)
	c.detail("Destination", p, true)
	return append(entries, ScopeEntry{"operation", string(AccessWrite)}, ScopeEntry{"path", p}), nil
}

// plainFileName reports whether n names a file in a directory: no slash,
// no NUL, not "", "." or "..".
func plainFileName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.ContainsAny(n, "/\x00")
}

// NormalizeHost trims a host, strips a trailing dot and lower-cases it.
func NormalizeHost(h string) string {
	return strings.ToLower(strings.TrimSuffix(strings.TrimSpace(h), "."))
}
