package profilefile

import (
	"maps"
	"os"
	"slices"

	"github.com/pelletier/go-toml/v2"

	"turnstile/domain"
)

// LoadConstraints reads and parses the operator's constraints file:
//
//	allowed_profiles = [":read-only", "dev"]   # a selection outside is refused
//	required_deny = ["~/.ssh", "/etc/shadow"]  # denied in every compiled profile, locked
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
		default:
			d.fail(k.path, "", key, "unknown key (known here: allowed_profiles, required_deny)")
		}
	}
	for _, err := range c.Validate() {
		d.fail([]string{"required_deny"}, "", "required_deny", "%v", err)
	}
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	return c, nil
}
