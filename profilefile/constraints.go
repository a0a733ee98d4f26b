package profilefile

import (
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"turnstile/domain"
)

// LoadConstraints reads and parses the operator's constraints file:
//
//	allowed_profiles = [":read-only", "dev"]   # a selection outside is refused
//	required_deny = ["~/.ssh", "/etc/shadow"]  # denied in every compiled profile, locked
//	allowed_roots = ["~/code", "/srv/work"]    # every root a turn names lies inside one
//
// profiles, when not nil, must define every allowed name (a typo would
// otherwise refuse a profile the operator meant to allow, or hide one).
func LoadConstraints(path string, profiles domain.ProfileSet) (*domain.Constraints, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConstraints(path, data, profiles)
}

// ParseConstraints decodes a constraints file named name.
func ParseConstraints(name string, data []byte, profiles domain.ProfileSet) (*domain.Constraints, error) {
	var root map[string]any
	if err := toml.Unmarshal(data, &root); err != nil {
		return nil, Errors{syntaxError(name, err)}
	}
	d := &decoder{file: name, lines: positions(data)}
	c := &domain.Constraints{}
	for _, key := range slices.Sorted(maps.Keys(root)) {
		k := keyed{path: []string{key}, name: key}
		switch key {
		case "allowed_profiles":
			if s, ok := d.strings("", k, root[key]); ok {
				c.AllowedProfiles = s
				for _, n := range s {
					if _, known := profiles.Lookup(n); profiles != nil && !known {
						d.fail(k.path, "", key, "no profile %q (known: %v)", n, profiles.Names())
					}
				}
			}
		case "required_deny":
			if s, ok := d.strings("", k, root[key]); ok {
				c.RequiredDeny = s
			}
		case "allowed_roots":
			if s, ok := d.strings("", k, root[key]); ok {
				c.AllowedRoots = s
			}
		default:
			d.fail(k.path, "", key, "unknown key (known here: allowed_profiles, allowed_roots, required_deny)")
		}
	}
	for _, err := range c.Validate() {
		key := "required_deny"
		if strings.HasPrefix(err.Error(), "allowed_roots") {
			key = "allowed_roots"
		}
		d.fail([]string{key}, "", key, "%v", err)
	}
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	return c, nil
}
