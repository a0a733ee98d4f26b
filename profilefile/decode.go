package profilefile

import (
	"maps"
	"slices"
	"strings"

	"turnstile/domain"
)

// keyed is the path of a key inside the document and its name as an error
// shows it (dotted, relative to the profile).
type keyed struct {
	path []string
	name string
}

func (k keyed) child(part string) keyed {
	name := domain.QuoteKey(part)
	if k.name != "" {
		name = k.name + "." + name
	}
	return keyed{path: append(slices.Clone(k.path), part), name: name}
}

// table asserts v is a table, or records an error.
func (d *decoder) table(profile string, k keyed, v any) (map[string]any, bool) {
	t, ok := v.(map[string]any)
	if !ok {
		d.fail(k.path, profile, k.name, "must be a table, not %s", typeName(v))
	}
	return t, ok
}

func (d *decoder) str(profile string, k keyed, v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		d.fail(k.path, profile, k.name, "must be a string, not %s", typeName(v))
	}
	return s, ok
}

func (d *decoder) strings(profile string, k keyed, v any) ([]string, bool) {
	arr, ok := v.([]any)
	if !ok {
		d.fail(k.path, profile, k.name, "must be an array of strings, not %s", typeName(v))
		return nil, false
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			d.fail(k.path, profile, k.name, "must be an array of strings (found %s)", typeName(e))
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func (d *decoder) integer(profile string, k keyed, v any, min, max int64) (int64, bool) {
	n, ok := v.(int64)
	if !ok {
		d.fail(k.path, profile, k.name, "must be an integer, not %s", typeName(v))
		return 0, false
	}
	if n < min || n > max {
		d.fail(k.path, profile, k.name, "must be between %d and %d, got %d", min, max, n)
		return 0, false
	}
	return n, true
}

func (d *decoder) unknown(profile string, k keyed, key string, known ...string) {
	d.fail(k.child(key).path, profile, k.child(key).name, "unknown key (known here: %s)", strings.Join(known, ", "))
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return "a date or time"
}

// profile decodes [permissions.<name>].
func (d *decoder) profile(name string, v any) *domain.Profile {
	at := keyed{path: []string{"permissions", name}}
	t, ok := v.(map[string]any)
	if !ok {
		d.fail(at.path, name, "", "a profile must be a table, not %s", typeName(v))
		return nil
	}
	p := &domain.Profile{Name: name}
	for _, key := range slices.Sorted(maps.Keys(t)) {
		k, val := at.child(key), t[key]
		switch key {
		case "extends":
			p.Extends, _ = d.str(name, k, val)
		case "glob_scan_max_depth":
			n, _ := d.integer(name, k, val, 1, 64)
			p.GlobScanMaxDepth = int(n)
		case "filesystem":
			p.Filesystem = d.filesystem(name, k, val)
		case "workspace_roots":
			if tt, ok := d.table(name, k, val); ok {
				p.WorkspaceRoots = map[string]bool{}
				for _, r := range slices.Sorted(maps.Keys(tt)) {
					b, ok := tt[r].(bool)
					if !ok {
						d.fail(k.child(r).path, name, k.child(r).name, "must be true or false, not %s", typeName(tt[r]))
					}
					p.WorkspaceRoots[r] = b
				}
			}
		case "network":
			p.Network = d.network(name, k, val)
		case "environment":
			p.Environment = d.environment(name, k, val)
		case "process":
			p.Process = d.process(name, k, val)
		case "approvals":
			p.Approvals = d.approvals(name, k, val)
		default:
			d.unknown(name, at, key, "extends", "filesystem", "glob_scan_max_depth", "workspace_roots", "network", "environment", "process", "approvals")
		}
	}
	return p
}

func (d *decoder) access(profile string, k keyed, v any) (domain.Access, bool) {
	s, ok := d.str(profile, k, v)
	if !ok {
		return "", false
	}
	a, err := domain.ParseProfileAccess(s)
	if err != nil {
		d.fail(k.path, profile, k.name, "%q is not read, write, overlay, deny or none", s)
		return "", false
	}
	return a, true
}

// filesystem decodes the filesystem table: key = access, or a special
// token = a table of subpaths ("." is the token's root itself).
func (d *decoder) filesystem(profile string, k keyed, v any) map[string]domain.Access {
	t, ok := d.table(profile, k, v)
	if !ok {
		return nil
	}
	out := map[string]domain.Access{}
	for _, key := range slices.Sorted(maps.Keys(t)) {
		kk := k.child(key)
		sub, nested := t[key].(map[string]any)
		if !nested {
			if a, ok := d.access(profile, kk, t[key]); ok {
				if _, dup := out[key]; dup {
					d.fail(kk.path, profile, kk.name, "%q is given twice", key)
				}
				out[key] = a
			}
			continue
		}
		if !strings.HasPrefix(key, ":") {
			d.fail(kk.path, profile, kk.name, "only a special token (such as \":workspace_roots\") takes a table of subpaths")
			continue
		}
		for _, s := range slices.Sorted(maps.Keys(sub)) {
			sk := kk.child(s)
			if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, ":") {
				d.fail(sk.path, profile, sk.name, "a subpath must be relative to %s", key)
				continue
			}
			a, ok := d.access(profile, sk, sub[s])
			if !ok {
				continue
			}
			full := key
			if s != "." {
				full = key + "/" + s
			}
			if _, dup := out[full]; dup {
				d.fail(sk.path, profile, sk.name, "%q is given twice", full)
			}
			out[full] = a
		}
	}
	return out
}

func (d *decoder) network(profile string, k keyed, v any) domain.ProfileNetwork {
	var n domain.ProfileNetwork
	t, ok := d.table(profile, k, v)
	if !ok {
		return n
	}
	for _, key := range slices.Sorted(maps.Keys(t)) {
		kk, val := k.child(key), t[key]
		switch key {
		case "enabled":
			b, ok := val.(bool)
			if !ok {
				d.fail(kk.path, profile, kk.name, "must be true or false, not %s", typeName(val))
				continue
			}
			n.Enabled = &b
		case "mode":
			n.Mode, _ = d.str(profile, kk, val)
		case "domains":
			if tt, ok := d.table(profile, kk, val); ok {
				n.Domains = map[string]domain.DomainAccess{}
				for _, dom := range slices.Sorted(maps.Keys(tt)) {
					if s, ok := d.str(profile, kk.child(dom), tt[dom]); ok {
						n.Domains[dom] = domain.DomainAccess(s)
					}
				}
			}
		case "unix_sockets":
			if tt, ok := d.table(profile, kk, val); ok {
				n.UnixSockets = map[string]bool{}
				for _, sock := range slices.Sorted(maps.Keys(tt)) {
					sk := kk.child(sock)
					switch x := tt[sock].(type) {
					case bool:
						n.UnixSockets[sock] = x
					case string:
						if x != "allow" && x != "deny" && x != "none" {
							d.fail(sk.path, profile, sk.name, "%q is not allow, deny or none", x)
						}
						n.UnixSockets[sock] = x == "allow"
					default:
						d.fail(sk.path, profile, sk.name, "must be \"allow\", \"deny\" or a boolean, not %s", typeName(x))
					}
				}
			}
		default:
			d.unknown(profile, k, key, "enabled", "mode", "domains", "unix_sockets")
		}
	}
	return n
}

func (d *decoder) environment(profile string, k keyed, v any) domain.ProfileEnvironment {
	var e domain.ProfileEnvironment
	t, ok := d.table(profile, k, v)
	if !ok {
		return e
	}
	for _, key := range slices.Sorted(maps.Keys(t)) {
		kk, val := k.child(key), t[key]
		switch key {
		case "inherit":
			e.Inherit, _ = d.str(profile, kk, val)
		case "exclude":
			if s, ok := d.strings(profile, kk, val); ok {
				e.Exclude = s
			}
		case "include_only":
			if s, ok := d.strings(profile, kk, val); ok {
				e.IncludeOnly = s
			}
		case "set":
			if tt, ok := d.table(profile, kk, val); ok {
				e.Set = map[string]string{}
				for _, name := range slices.Sorted(maps.Keys(tt)) {
					if s, ok := d.str(profile, kk.child(name), tt[name]); ok {
						e.Set[name] = s
					}
				}
			}
		default:
			d.unknown(profile, k, key, "inherit", "exclude", "set", "include_only")
		}
	}
	return e
}

func (d *decoder) process(profile string, k keyed, v any) domain.ProfileProcess {
	var p domain.ProfileProcess
	t, ok := d.table(profile, k, v)
	if !ok {
		return p
	}
	for _, key := range slices.Sorted(maps.Keys(t)) {
		kk, val := k.child(key), t[key]
		switch key {
		case "timeout_cap_ms":
			p.TimeoutCapMs, _ = d.integer(profile, kk, val, 1, domain.MaxCommandDurationMs)
		case "denied_commands":
			p.DeniedCommands, _ = d.strings(profile, kk, val)
		default:
			d.unknown(profile, k, key, "timeout_cap_ms", "denied_commands")
		}
	}
	return p
}

func (d *decoder) approvals(profile string, k keyed, v any) domain.ProfileApprovals {
	var a domain.ProfileApprovals
	t, ok := d.table(profile, k, v)
	if !ok {
		return a
	}
	for _, key := range slices.Sorted(maps.Keys(t)) {
		kk, val := k.child(key), t[key]
		switch key {
		case "policy":
			if s, ok := d.str(profile, kk, val); ok {
				a.Policy = domain.Mode(s)
			}
		case "auto_reject":
			if s, ok := d.strings(profile, kk, val); ok {
				for _, c := range s {
					a.AutoReject = append(a.AutoReject, domain.ActionKind(c))
				}
			}
		default:
			d.unknown(profile, k, key, "policy", "auto_reject")
		}
	}
	return a
}
