package domain

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// How the classifier reads a call's argument names and types: one name
// per argument, names as Go's decoders match them, the catalogue's types,
// and what it does not read (bound by a hash and shown).

// argumentNames are the names a tool's argument may go by (docs/tools.md).
// A call that gives one argument under two of them is refused: the
// classifier reads one, and the tool that runs may read the other.
var argumentNames = map[string][][]string{
	"read_file":    {{"path", "file_path", "dir_path"}},
	"list_dir":     {{"path", "file_path", "dir_path"}},
	"grep_files":   {{"path", "file_path", "dir_path"}},
	"apply_patch":  {{"patch", "input"}},
	"exec_command": {{"argv", "cmd", "command"}, {"workdir", "cwd"}},
	"download_url": {{"destination", "path", "dest"}},
}

// readArgumentNames are the names of the arguments the classifier reads,
// by tool: the catalogue's, their other names, and exec_command's
// stdin_sha256 and stdin_bytes.
var readArgumentNames = func() map[string][]string {
	m := map[string][]string{"exec_command": {"stdin_sha256", "stdin_bytes"}}
	for _, t := range ToolCatalogue {
		for _, a := range t.Args {
			m[t.Name] = append(m[t.Name], a.Name)
		}
	}
	for tool, groups := range argumentNames {
		for _, g := range groups {
			for _, n := range g {
				if !slices.Contains(m[tool], n) {
					m[tool] = append(m[tool], n)
				}
			}
		}
	}
	return m
}()

// typedArgumentTools are the tools whose scope names the arguments the
// classifier reads one by one: an argument given with another type than
// its own is refused there (argumentTypes), where reading it as absent
// would judge another call than a runtime that coerces it makes.
var typedArgumentTools = []string{"read_file", "list_dir", "grep_files", "apply_patch", "exec_command", "web_fetch", "download_url"}

// argumentTypes are the JSON types of the arguments the classifier reads,
// by tool (the catalogue's, an argument's other names typed as it is).
var argumentTypes = func() map[string]map[string]string {
	m := map[string]map[string]string{}
	for _, t := range ToolCatalogue {
		if !slices.Contains(typedArgumentTools, t.Name) {
			continue
		}
		m[t.Name] = map[string]string{}
		for _, a := range t.Args {
			m[t.Name][a.Name] = a.Type
		}
		for _, g := range argumentNames[t.Name] {
			typ := ""
			for _, n := range g {
				typ = cmp.Or(typ, m[t.Name][n])
			}
			for _, n := range g {
				m[t.Name][n] = typ
			}
		}
	}
	m["exec_command"]["stdin_sha256"], m["exec_command"]["stdin_bytes"] = "string", "integer"
	return m
}()

// argumentTypesMatch refuses an argument the classifier reads (of a tool in
// typedArgumentTools) given, not null, with another JSON type than its own:
// read as absent, {"method": ["POST"]} was judged GET, while fetch in Node
// converts the array to the string "POST".
func (c *classifier) argumentTypesMatch() error {
	types := argumentTypes[c.inv.ToolName]
	for k, v := range c.args {
		typ, ok := types[k]
		if !ok || v == nil {
			continue
		}
		match := false
		for t := range strings.SplitSeq(typ, "|") {
			switch t {
			case "string":
				_, match = v.(string)
			case "boolean":
				_, match = v.(bool)
			case "integer":
				_, match = v.(json.Number)
			case "object":
				_, match = v.(map[string]any)
			case "array":
				_, match = v.([]any)
			}
			if match {
				break
			}
		}
		if !match {
			return &FieldError{Field: "arguments." + k, Message: "must be a JSON " + strings.ReplaceAll(typ, "|", " or ")}
		}
	}
	return nil
}

// oneNamePerArgument refuses an argument given under two of its names, two
// keys that differ only in case (a decoder that matches names without
// regard to case, as Go's encoding/json does, takes the last of them), and a
// key that differs from the name of an argument the classifier reads only
// in case (such a decoder reads it as that argument).
func (c *classifier) oneNamePerArgument() error {
	for _, names := range argumentNames[c.inv.ToolName] {
		var given []string
		for _, n := range names {
			if v, ok := c.args[n]; ok && v != nil {
				given = append(given, n)
			}
		}
		if len(given) > 1 {
			return &FieldError{Field: "arguments." + given[1], Message: "the same argument as " + given[0] + ": give it once"}
		}
	}
	// Names compared as Go's encoding/json matches them (bytes.EqualFold:
	// Unicode simple folding); a tool call has a handful, compared in pairs.
	var buf [16]string
	seen := buf[:0]
	read := readArgumentNames[c.inv.ToolName]
	for k := range c.args {
		if !isASCII(k) {
			if _, foreign := foldKey(k); foreign {
				// ſ (U+017F) reads as s and K (U+212A) as k to a decoder
				// that folds case as Go's encoding/json does.
				return &FieldError{Field: "arguments." + k, Message: "holds a character that some decoders read as an ASCII letter: write the name in ASCII"}
			}
		}
		// A lone key in another case than an argument's name: the
		// classifier, which reads names as written, does not read it, and
		// a decoder that ignores case (Go's) reads it as that argument.
		for _, n := range read {
			if k != n && strings.EqualFold(k, n) {
				return &FieldError{Field: "arguments." + k, Message: "is the argument " + n + " to a decoder that ignores case: write it as " + n}
			}
		}
		for _, o := range seen {
			if strings.EqualFold(o, k) {
				a, b := min(o, k), max(o, k)
				return &FieldError{Field: "arguments." + b, Message: "differs from " + a + " only in case: give one"}
			}
		}
		seen = append(seen, k)
	}
	return nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldKey is k with every letter folded to its smallest case variant
// (Unicode simple folding), and whether a non-ASCII letter of k folds to an
// ASCII one.
func foldKey(k string) (string, bool) {
	var b strings.Builder
	foreign := false
	for _, r := range k {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		foreign = foreign || (r >= utf8.RuneSelf && m < utf8.RuneSelf)
		b.WriteRune(m)
	}
	return b.String(), foreign
}

// repeatedKey refuses an arguments object that gives a key twice (decoders
// differ on which one counts).
func repeatedKey(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil // not an object: Decode said so already
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		k, _ := t.(string)
		if seen[k] {
			return &FieldError{Field: "arguments." + k, Message: "given twice"}
		}
		seen[k] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return nil
}

// unread binds the arguments of a tool whose scope names its arguments one
// by one (exec_command, web_fetch, download_url) that the classifier does
// not read: a runtime may honour them (Codex's exec_command takes
// sandbox_permissions, shell, login and prefix_rule; an HTTP tool headers
// and a body), so they are hashed into the scope (other_arguments_sha256,
// keys sorted), so that a grant of the call without them does not cover
// the call with them, and shown (an "Other arguments" detail, redacted as
// argumentsDetail redacts). A null is an absent argument. Each argument is
// shown on its own, cut past MaxOtherArgumentDetail bytes: cut as one text,
// a long first argument hid the ones after it (sandbox_permissions:
// require_escalated behind 5,000 x's). A call with more than
// MaxOtherArguments of them is refused.
func (c *classifier) unread(entries []ScopeEntry) ([]ScopeEntry, error) {
	var other map[string]any
	for k, v := range c.args {
		if v == nil || slices.Contains(readArgumentNames[c.inv.ToolName], k) {
			continue
		}
		if other == nil {
			other = map[string]any{}
		}
		other[k] = v
	}
	if other == nil {
		return entries, nil
	}
	if len(other) > MaxOtherArguments {
		return nil, &FieldError{Field: "arguments", Message: fmt.Sprintf("has %d arguments the classifier does not read; the limit is %d", len(other), MaxOtherArguments)}
	}
	b, _ := json.Marshal(other) // decoded JSON values: it cannot fail
	keys := slices.Sorted(maps.Keys(other))
	parts := make([]string, len(keys))
	for i, k := range keys {
		one := map[string]any{k: other[k]}
		if parts[i] = argumentsDetailBound(one, MaxOtherArgumentDetail); strings.HasSuffix(parts[i], " more bytes not shown]") {
			parts[i] = detailByLeaf(one, MaxOtherArgumentDetail, minArgumentDetail)
		}
	}
	c.detail("Other arguments", strings.Join(parts, " "), true)
	return append(entries, ScopeEntry{"other_arguments_sha256", c.inv.Key.Sum(b)}), nil
}

// MaxOtherArguments bounds the arguments of a call that the classifier does
// not read (unread), each shown in up to MaxOtherArgumentDetail bytes.
const (
	MaxOtherArguments      = 32
	MaxOtherArgumentDetail = 1024
	// MaxEnvironmentValue bounds each value a command's request shows of
	// its environment (envShowsValue): a longer one is refused.
	MaxEnvironmentValue = 4096
)
