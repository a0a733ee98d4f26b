// Package profilefile decodes the permission profiles file and the
// operator's constraints file (TOML) into the domain model. The profiles
// file has the shape agent users already write for their
// [permissions.<name>] tables, so an existing table pastes in:
//
//	[permissions.dev]
//	extends = ":workspace"                     # one parent: a built-in or a profile
//	glob_scan_max_depth = 4
//	[permissions.dev.filesystem]
//	"**/*.env" = "deny"                        # globs only with deny
//	"~/.cache" = "write"
//	[permissions.dev.filesystem.":workspace_roots"]
//	"." = "write"                              # the root itself
//	".devcontainer" = "read"
//	[permissions.dev.workspace_roots]
//	"~/code/app" = true
//	[permissions.dev.network]
//	enabled = true
//	mode = "limited"                           # or "full"
//	[permissions.dev.network.domains]
//	"pypi.org" = "allow"
//	"**.github.com" = "allow"
//	"tracking.example.com" = "deny"
//	[permissions.dev.network.unix_sockets]
//	"/run/docker.sock" = "allow"
//
// plus turnstile's own tables:
//
//	[permissions.dev.environment]
//	inherit = "core"                           # all | core | none
//	exclude = ["*KEY*", "*SECRET*", "*TOKEN*"] # the default when unset
//	include_only = ["PATH", "HOME", "LANG"]
//	[permissions.dev.environment.set]
//	CI = "1"
//	[permissions.dev.process]
//	timeout_cap_ms = 600000
//	denied_commands = ["curl", "wget"]
//	[permissions.dev.approvals]
//	policy = "auto_accept_edits"               # the behaviour table: a mode
//	auto_reject = ["network"]                  # categories refused without a prompt
//
// Decoding is strict: an unknown key or a value of the wrong type is an
// error naming the file, its line, the profile and the key.
package profilefile

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"turnstile/domain"
)

// Error is one problem in a file: where, which profile, which key, what.
type Error struct {
	File    string
	Line    int // 0 when unknown
	Profile string
	Key     string
	Message string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Profile != "" {
		fmt.Fprintf(&b, "profile %q: ", e.Profile)
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Errors is every problem found in a file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// File is a decoded profiles file.
type File struct {
	Name     string
	Profiles domain.ProfileSet
	// Warnings name what the file says that compiles to nothing (unknown
	// special tokens): never an error, never widened.
	Warnings []string
}

// Load reads and parses the profiles file at path.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// decoder walks the generic TOML tree with the file's key positions.
type decoder struct {
	file  string
	lines map[string]int
	errs  Errors
}

func (d *decoder) fail(path []string, profile, key, format string, args ...any) {
	line := 0
	for i := len(path); i > 0 && line == 0; i-- {
		line = d.lines[strings.Join(path[:i], "\x00")]
	}
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Profile: profile, Key: key, Message: fmt.Sprintf(format, args...)})
}

// Parse decodes a profiles file named name. It returns *File, or Errors
// listing every problem found (syntax, unknown keys, types, invalid rules,
// unknown parents, cycles).
func Parse(name string, data []byte) (*File, error) {
	var root map[string]any
	if err := toml.Unmarshal(data, &root); err != nil {
		return nil, Errors{syntaxError(name, err)}
	}
	d := &decoder{file: name, lines: positions(data)}
	f := &File{Name: name, Profiles: domain.ProfileSet{}}
	for _, k := range slices.Sorted(maps.Keys(root)) {
		if k != "permissions" {
			d.fail([]string{k}, "", domain.QuoteKey(k), "unknown key (a profiles file has only [permissions.<name>] tables)")
		}
	}
	perms, ok := root["permissions"]
	if !ok {
		d.fail(nil, "", "permissions", "no [permissions.<name>] table")
		return nil, d.errs
	}
	table, ok := perms.(map[string]any)
	if !ok {
		d.fail([]string{"permissions"}, "", "permissions", "must be a table of profiles")
		return nil, d.errs
	}
	for _, name := range slices.Sorted(maps.Keys(table)) {
		if p := d.profile(name, table[name]); p != nil {
			f.Profiles[name] = p
		}
	}
	if len(d.errs) == 0 {
		for _, err := range f.Profiles.Validate() {
			d.domainError(err)
		}
	} else {
		// The chains may be incomplete; the rules of each profile are not.
		for _, name := range slices.Sorted(maps.Keys(f.Profiles)) {
			for _, err := range f.Profiles[name].Validate() {
				d.domainError(err)
			}
		}
	}
	if len(d.errs) == 0 {
		for _, name := range slices.Sorted(maps.Keys(f.Profiles)) {
			cp, err := domain.CompileProfile(f.Profiles, name, domain.ProfileEnv{Cwd: "/"}, nil)
			if err != nil {
				d.domainError(err)
				continue
			}
			for _, w := range cp.Warnings {
				if strings.Contains(w, "unknown special token") {
					f.Warnings = append(f.Warnings, fmt.Sprintf("%s: profile %q: %s", name, cp.Name, w))
				}
			}
		}
	}
	if len(d.errs) > 0 {
		slices.SortStableFunc(d.errs, func(a, b *Error) int { return a.Line - b.Line })
		return nil, d.errs
	}
	return f, nil
}

// domainError maps a domain validation error back to its line.
func (d *decoder) domainError(err error) {
	var pe *domain.ProfileError
	if !errors.As(err, &pe) {
		d.fail(nil, "", "", "%v", err)
		return
	}
	path := []string{"permissions", pe.Profile}
	path = append(path, splitKeyPath(pe.Key)...)
	if len(path) > 2 && path[2] == "filesystem" && len(path) == 4 {
		// A nested ":token" table's entry is stored as ":token/sub".
		if tok, sub, ok := strings.Cut(path[3], "/"); ok && strings.HasPrefix(tok, ":") && d.lines[strings.Join(path, "\x00")] == 0 {
			path = append(path[:3], tok, sub)
		}
	}
	d.fail(path, pe.Profile, pe.Key, "%s", pe.Message)
}

// splitKeyPath splits a dotted key path written with domain.QuoteKey.
func splitKeyPath(k string) []string {
	var parts []string
	for k != "" {
		if k[0] == '"' {
			end := 1
			for end < len(k) && (k[end] != '"' || k[end-1] == '\\') {
				end++
			}
			var s string
			if _, err := fmt.Sscanf(k[:min(end+1, len(k))], "%q", &s); err != nil {
				s = k[1:end]
			}
			parts = append(parts, s)
			k = strings.TrimPrefix(k[min(end+1, len(k)):], ".")
			continue
		}
		head, rest, _ := strings.Cut(k, ".")
		parts = append(parts, head)
		k = rest
	}
	return parts
}

func syntaxError(name string, err error) *Error {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		return &Error{File: name, Line: line, Message: strings.TrimPrefix(de.Error(), "toml: ")}
	}
	return &Error{File: name, Message: err.Error()}
}
