package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// ClaudeCodeTool is one row of the table that maps Claude Code's tools
// (REFERENCE §11) onto turnstile's classifier: the Claude Code tool, the
// built-in tool it is classified as, the action kind that gives, and what its
// scope holds.
type ClaudeCodeTool struct {
	// Name is Claude Code's tool name; "mcp__<server>__<tool>" and "*" stand
	// for MCP tools and every other name.
	Name string
	// As is the turnstile tool name the call is classified as.
	As string
	// Kind is the action kind the classifier gives As.
	Kind ActionKind
	// Scope says what the scope (and so an allow_for_turn grant) holds.
	Scope string
	// mapArgs turns Claude Code's tool_input into As's arguments; cwd is the
	// session's working directory.
	mapArgs func(in map[string]any, cwd string) (map[string]any, error)
}

// ClaudeCodeUnknownPrefix prefixes a Claude Code tool the table does not
// know, so that no Claude Code name can collide with a turnstile built-in
// (an internal tool is always allowed; a "task_" or "skill__" name has a
// kind of its own): it stays unknown.
const ClaudeCodeUnknownPrefix = "claude_code."

// claudeCodeInternal reports whether name is a Claude Code tool the table
// classifies as the runtime's own bookkeeping (ActionInternal): without a
// row, such a tool was unknown, which no sandbox holds, and refused where
// the snapshot restricts reach (tool_unconfined).
func claudeCodeInternal(name string) bool {
	return strings.HasPrefix(name, ClaudeCodeUnknownPrefix) && slices.ContainsFunc(ClaudeCodeTools, func(t ClaudeCodeTool) bool {
		return t.Kind == ActionInternal && t.As == name
	})
}

// ClaudeCodeTools is the mapping table. ClaudeCodeToolsMarkdown renders it
// into the README (a test keeps the two equal).
var ClaudeCodeTools = []ClaudeCodeTool{
	{Name: "Bash", As: "exec_command", Kind: ActionShellCommand, Scope: "the command string (run by /bin/sh -c), cwd (the session's), timeout, and a hash of the other fields but `description` (`dangerouslyDisableSandbox`, `run_in_background`), which are shown", mapArgs: ccBash},
	{Name: "Read", As: "read_file", Kind: ActionFileRead, Scope: "read of `file_path`", mapArgs: ccPath("file_path", false)},
	{Name: "Glob", As: "list_dir", Kind: ActionFileRead, Scope: "read of `path` (default cwd) joined with the pattern's literal prefix; an absolute pattern is split as Claude Code splits it, its directory searched with the rest (`/etc/*` is `*` over `/etc`, `/w/a.go` is `a.go` over `/w`); rg reads the pattern as .gitignore does, so one without a `/` (`*.md`), starting with `!`, a comment (`#…`), or one with a `**` or a character class that matches `/` (negated, `[^q]` or `[!q]`, or holding `/`, `[.-0]`) lists every level, checked as `LS` is", mapArgs: ccGlob},
	{Name: "Grep", As: "grep_files", Kind: ActionFileRead, Scope: "read of `path` (default cwd)", mapArgs: ccPath("path", true)},
	{Name: "LS", As: "list_dir", Kind: ActionFileRead, Scope: "read of `path`, a listing of every level; opened as written, so a path with a `..` element or surrounding blanks is refused", mapArgs: ccAsWritten("path", ccPath("path", true))},
	{Name: "Write", As: "apply_patch", Kind: ActionFileWrite, Scope: "write of `file_path` (content not hashed: a grant covers that file for the turn)", mapArgs: ccWrite("file_path")},
	{Name: "Edit", As: "apply_patch", Kind: ActionFileWrite, Scope: "write of `file_path`", mapArgs: ccWrite("file_path")},
	{Name: "MultiEdit", As: "apply_patch", Kind: ActionFileWrite, Scope: "write of `file_path`", mapArgs: ccWrite("file_path")},
	{Name: "NotebookEdit", As: "apply_patch", Kind: ActionFileWrite, Scope: "write of `notebook_path`; opened as written, so a path with a `..` element or surrounding blanks is refused", mapArgs: ccAsWritten("notebook_path", ccWrite("notebook_path"))},
	{Name: "WebFetch", As: "web_fetch", Kind: ActionNetwork, Scope: "GET, scheme, domain, URL origin and path, hash of the full URL; an http URL is judged as the https one Claude Code fetches", mapArgs: ccWebFetch},
	{Name: "WebSearch", As: "web_search", Kind: ActionNetwork, Scope: "hash of the query and domain lists", mapArgs: ccKeep("query", "allowed_domains", "blocked_domains")},
	{Name: "Task", As: "task_create", Kind: ActionTaskSubagent, Scope: "hash of the whole input (description, prompt, subagent_type, and what else it names: isolation, cwd, model, run_in_background, name, each shown); an allowed Task starts a child turn", mapArgs: ccWhole},
	{Name: "Agent", As: "task_create", Kind: ActionTaskSubagent, Scope: "as Task (Claude Code's newer name for it; Task is its alias)", mapArgs: ccWhole},
	{Name: "TodoWrite", As: ClaudeCodeUnknownPrefix + "TodoWrite", Kind: ActionInternal, Scope: "none: Claude Code's own bookkeeping (its to-do list), always allowed", mapArgs: ccKeep()},
	{Name: "BashOutput", As: ClaudeCodeUnknownPrefix + "BashOutput", Kind: ActionInternal, Scope: "none: the output of a background Bash call already decided, always allowed", mapArgs: ccKeep()},
	{Name: "KillShell", As: ClaudeCodeUnknownPrefix + "KillShell", Kind: ActionInternal, Scope: "none: stops a background Bash call, always allowed", mapArgs: ccKeep()},
	{Name: "mcp__<server>__<tool>", As: "mcp__<server>__<tool>", Kind: ActionMCPWriteOrUnknown, Scope: "server, tool, hash of the input; `mcp_read` only for a tool the operator trusts (`serve --mcp-read-only server/tool`), and for a name that reads more than one way (a `__` in the server's or the tool's name) only when every reading is trusted"},
	{Name: "*", As: ClaudeCodeUnknownPrefix + "<Name>", Kind: ActionUnknown, Scope: "hash of the input; the mode's `default_behavior`"},
}

// ClaudeCodeToolsMarkdown renders the table as Markdown.
func ClaudeCodeToolsMarkdown() string {
	var b strings.Builder
	b.WriteString("| Claude Code tool | classified as | action kind | scope |\n|---|---|---|---|\n")
	for _, t := range ClaudeCodeTools {
		name := "`" + t.Name + "`"
		if t.Name == "*" {
			name = "anything else"
		}
		fmt.Fprintf(&b, "| %s | `%s` | `%s` | %s |\n", name, t.As, t.Kind, t.Scope)
	}
	return b.String()
}

// ClaudeCodeInvocation maps a Claude Code tool call (its tool_name and
// tool_input) onto the invocation turnstile classifies. cwd is the session's
// working directory (Claude Code's paths are absolute; a relative one is
// resolved against it). Malformed input is a *FieldError.
// ClaudeCodeSubagentTool reports whether tool is Claude Code's sub-agent
// tool: Task, or Agent, its newer name (Task its alias there). An allowed
// one starts a child turn, and its PostToolUse ends it.
func ClaudeCodeSubagentTool(tool string) bool { return tool == "Task" || tool == "Agent" }

func ClaudeCodeInvocation(tool string, input json.RawMessage, cwd string) (Invocation, error) {
	if tool == "" {
		return Invocation{}, &FieldError{Field: "tool_name", Message: "required"}
	}
	in := map[string]any{}
	if t := bytes.TrimSpace(input); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.UseNumber()
		if err := dec.Decode(&in); err != nil {
			return Invocation{}, &FieldError{Field: "tool_input", Message: "must be a JSON object"}
		}
	}
	if strings.HasPrefix(tool, "mcp__") {
		return Invocation{ToolName: tool, Arguments: rawOrEmpty(input)}, nil
	}
	i := slices.IndexFunc(ClaudeCodeTools, func(t ClaudeCodeTool) bool { return t.Name == tool && t.mapArgs != nil })
	if i < 0 {
		return Invocation{ToolName: ClaudeCodeUnknownPrefix + tool, Arguments: rawOrEmpty(input)}, nil
	}
	t := ClaudeCodeTools[i]
	args, err := t.mapArgs(in, cwd)
	if err != nil {
		return Invocation{}, err
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return Invocation{}, &FieldError{Field: "tool_input", Message: err.Error()}
	}
	return Invocation{ToolName: t.As, Arguments: raw}, nil
}

func rawOrEmpty(r json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(r)) == 0 {
		return json.RawMessage("{}")
	}
	return r
}

// ccString reads a string field; absent is "", any other type an error.
func ccString(in map[string]any, key string) (string, error) {
	switch v := in[key].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	}
	return "", &FieldError{Field: "tool_input." + key, Message: "must be a string"}
}

// ccCleanPath resolves p against cwd as Claude Code's file tools resolve
// it (expandPath in its src/utils/path.ts): trimmed as JavaScript's
// String.prototype.trim trims (jsSpace), then joined to cwd when relative.
// Control characters are refused (a newline in a path would split the
// patch header it becomes; U+0085, a C1 control, is white space that the
// patch's reader trims and JavaScript's trim keeps), and so are "~" and "~/…", which Claude Code
// reads as its user's home directory, a directory the hook is not told.
func ccCleanPath(field, p, cwd string) (string, error) {
	if strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }) {
		return "", &FieldError{Field: "tool_input." + field, Message: "must not contain control characters"}
	}
	p = strings.TrimFunc(p, jsSpace)
	if p == "~" || strings.HasPrefix(p, "~/") {
		return "", &FieldError{Field: "tool_input." + field, Value: p, Message: "names the home directory, which turnstile does not know for this session: write the absolute path"}
	}
	// Claude Code keeps its paths in Unicode normal form C. A name that
	// is not in it (the Kelvin sign, which NFC makes a K; a decomposed
	// accent) may be opened as another name than the one judged: /w/K, a
	// link to the home directory, reached as /w/\u212a (ninth review).
	if !norm.NFC.IsNormalString(p) {
		return "", &FieldError{Field: "tool_input." + field, Value: p, Message: "is not in Unicode normal form C (NFC), the form Claude Code opens: write it composed"}
	}
	// Claude Code puts the path joined to its cwd in that form, not only
	// the part the tool names: a relative name from a cwd not in NFC
	// (ws/Cafe\u0301) is opened as another directory (ws/Caf\u00e9, a
	// link out of the workspace or a sibling of the project) than the one
	// joined here (the hundred-and-eighty-fourth review).
	r := ResolvePath(cwd, p)
	if !norm.NFC.IsNormalString(r) {
		return "", &FieldError{Field: "tool_input." + field, Value: p, Message: "joined to the session's cwd, is not in Unicode normal form C (NFC), the form Claude Code opens: write the absolute path, composed"}
	}
	return r, nil
}

// jsSpace reports whether r is white space or a line terminator to
// JavaScript's trim (ECMAScript WhiteSpace and LineTerminator): tab, line
// feed, vertical tab, form feed, carriage return, space, U+00A0, U+FEFF,
// the other space separators (Zs) and U+2028, U+2029. Unlike Go's
// unicode.IsSpace it holds U+FEFF and not U+0085.
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\ufeff', '\u2028', '\u2029':
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

func ccBash(in map[string]any, cwd string) (map[string]any, error) {
	cmd, err := ccString(in, "command")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(cmd) == "" {
		return nil, &FieldError{Field: "tool_input.command", Message: "required"}
	}
	out := map[string]any{"cmd": cmd, "workdir": ResolvePath("/", cwd)}
	if t, ok := in["timeout"].(json.Number); ok {
		out["timeout_ms"] = t
	}
	// Every other field but the description (prose for the person) is
	// kept under its own name: exec_command binds and shows what it does
	// not read (dangerouslyDisableSandbox runs the command outside Claude
	// Code's sandbox; run_in_background).
	for k, v := range in {
		switch k {
		case "command", "timeout", "description":
		default:
			if _, taken := out[k]; !taken {
				out[k] = v
			}
		}
	}
	return out, nil
}

func ccPath(key string, optional bool) func(map[string]any, string) (map[string]any, error) {
	return func(in map[string]any, cwd string) (map[string]any, error) {
		p, err := ccString(in, key)
		if err != nil {
			return nil, err
		}
		if p == "" {
			if !optional {
				return nil, &FieldError{Field: "tool_input." + key, Message: "required"}
			}
			p = cwd
		}
		if p, err = ccCleanPath(key, p, cwd); err != nil {
			return nil, err
		}
		return map[string]any{"path": p}, nil
	}
}

// ccAsWritten refuses, for a tool that opens its path as written (no
// trim, no normalisation: NotebookEdit and LS take an absolute path as
// is, a relative one resolved against the cwd), a path with a ".."
// element or blanks JavaScript's trim takes off: the kernel applies a
// ".." where the links before it lead, and the check judged it lexically,
// as for the tools that normalise (ws/sub/../nb.ipynb, sub a link to
// another project, was judged as ws/nb.ipynb and written there: the
// hundred-and-seventy-first review). Then f maps the input.
func ccAsWritten(key string, f func(map[string]any, string) (map[string]any, error)) func(map[string]any, string) (map[string]any, error) {
	return func(in map[string]any, cwd string) (map[string]any, error) {
		if p, ok := in[key].(string); ok {
			if strings.TrimFunc(p, jsSpace) != p {
				return nil, &FieldError{Field: "tool_input." + key, Value: p, Message: "begins or ends with blanks, which this tool opens as written: write the path without them"}
			}
			if hasDotDot(p) {
				return nil, &FieldError{Field: "tool_input." + key, Value: p, Message: "has a '..' element, which this tool opens as written (the kernel applies it where the links before it lead): write the path without '..'"}
			}
		}
		return f(in, cwd)
	}
}

// ccGlob reads what a glob can reach: path (default cwd) joined with the
// pattern's literal leading directories, so that "/etc/*" or "../../x/*"
// is the read of the directory it lists, not of cwd.
//
// Claude Code's Glob (glob in its src/utils/glob.ts) gives rg an
// absolute pattern split (ccGlobBase): rg searches the pattern's static
// directory with the rest as its --glob, so "/w/*" is the glob "*" over
// /w, which rg matches at every level, and path is not read.
func ccGlob(in map[string]any, cwd string) (map[string]any, error) {
	base, err := ccString(in, "path")
	if err != nil {
		return nil, err
	}
	pattern, err := ccString(in, "pattern")
	if err != nil {
		return nil, err
	}
	if base == "" {
		base = cwd
	}
	if base, err = ccCleanPath("path", base, cwd); err != nil {
		return nil, err
	}
	if _, err := ccCleanPath("pattern", pattern, cwd); err != nil {
		return nil, err
	}
	if strings.HasPrefix(pattern, "/") {
		dir, rel := ccGlobBase(pattern)
		// The directory as written: a '..' in it is applied by the
		// kernel when rg opens it, after the links before it.
		return ccGlobListing(rel, func(p string) string {
			if p == "" {
				return dir
			}
			return strings.TrimSuffix(dir, "/") + "/" + p
		}), nil
	}
	return ccGlobListing(pattern, func(p string) string { return ResolvePath(base, p) }), nil
}

// ccGlobBase splits an absolute pattern as Claude Code's
// extractGlobBaseDirectory does: before the last '/' ahead of the first of
// "*?[{" is the directory rg searches ("/" when that is the first
// character), after it the glob; a pattern without one of them is its
// directory and its last element (Node's dirname and basename).
func ccGlobBase(pattern string) (dir, glob string) {
	if i := strings.IndexAny(pattern, "*?[{"); i >= 0 {
		j := strings.LastIndexByte(pattern[:i], '/')
		if j == 0 {
			return "/", pattern[1:]
		}
		return pattern[:j], pattern[j+1:]
	}
	p := strings.TrimRight(pattern, "/")
	if p == "" {
		return "/", ""
	}
	j := strings.LastIndexByte(p, '/')
	if j == 0 {
		return "/", p[1:]
	}
	return p[:j], p[j+1:]
}

// ccGlobListing is the listing rg --files --glob pattern shows of a
// directory, join(""), whose directories below it join names:
// rg reads the glob as a line of .gitignore (the ignore crate's
// add_line), so a glob that starts with '#' is a comment and one that is
// blank is none (rg lists every file), one that starts with '!' an
// exclusion (every other file), and one without a '/' but a trailing one
// matches a name at any level: each is a listing of every level. Another
// is anchored to the directory: its literal leading directories are read,
// as deep as the elements from its first wildcard on ("**": every level).
func ccGlobListing(pattern string, join func(prefix string) string) map[string]any {
	g := pattern
	if !strings.HasSuffix(g, "\\ ") {
		g = strings.TrimRightFunc(g, unicode.IsSpace)
	}
	if g == "" || strings.HasPrefix(g, "#") || strings.HasPrefix(g, "!") ||
		!strings.Contains(strings.TrimSuffix(g, "/"), "/") {
		return map[string]any{"path": join("")}
	}
	// rg anchors a glob that starts with '/' to the directory.
	pattern = strings.TrimPrefix(pattern, "/")
	var lit []string
	for _, part := range strings.Split(pattern, "/") {
		if strings.ContainsAny(part, "*?[{\\") {
			break
		}
		lit = append(lit, part)
	}
	prefix := strings.Join(lit, "/")
	if len(lit) > 0 && !strings.ContainsAny(pattern[len(prefix):], "*?[{\\") {
		// No wildcard at all: the pattern names one path; its directory is read.
		prefix = path.Dir(prefix)
	}
	out := map[string]any{"path": join(prefix)}
	// How many levels below that directory the glob can show (list_dir's
	// depth): one per element of the pattern from its first wildcard on;
	// "**" leaves it unbounded. A pattern without one names one path,
	// whose directory is listed.
	depth := 1
	if rest := strings.Split(pattern, "/")[len(lit):]; len(rest) > 0 {
		depth = len(rest)
		if slices.ContainsFunc(rest, func(e string) bool { return strings.Contains(e, "**") }) || globClassMatchesSlash(pattern) {
			depth = 0
		}
	}
	if depth > 0 {
		out["depth"] = json.Number(strconv.Itoa(depth))
	}
	return out
}

// globClassMatchesSlash reports whether a character class of glob, as
// rg's globset reads one, can match the '/' between two names: a negated
// class ("[^q]", "[!q]") or one holding '/' itself or in a range
// ("[.-0]"). rg keeps '*' and '?' within a name, not a class, so that
// "src/*[^q]*[^q]*" matches src/a/b/c, three levels below src.
func globClassMatchesSlash(glob string) bool {
	for i := 0; i < len(glob); i++ {
		switch glob[i] {
		case '\\':
			i++
		case '[':
			j := i + 1
			if j < len(glob) && (glob[j] == '!' || glob[j] == '^') {
				return true
			}
			// globset: a ']' or '-' first is itself; a '-' between two
			// bytes is a range; the next ']' closes the class.
			first, closed := true, false
			for ; j < len(glob) && !closed; j++ {
				c := glob[j]
				switch {
				case c == ']' && !first:
					closed = true
				case c == '/':
					return true
				case c == '-' && !first && j+1 < len(glob) && glob[j+1] != ']':
					if glob[j-1] <= '/' && glob[j+1] >= '/' {
						return true
					}
				}
				first = false
			}
			i = j - 1
		}
	}
	return false
}

// ccWrite writes one file; the patch names it and nothing else, so that the
// scope is the file, not its content.
func ccWrite(key string) func(map[string]any, string) (map[string]any, error) {
	return func(in map[string]any, cwd string) (map[string]any, error) {
		p, err := ccString(in, key)
		if err != nil {
			return nil, err
		}
		if p == "" {
			return nil, &FieldError{Field: "tool_input." + key, Message: "required"}
		}
		if p, err = ccCleanPath(key, p, cwd); err != nil {
			return nil, err
		}
		return map[string]any{"patch": "*** Update File: " + p + "\n"}, nil
	}
}

func ccWebFetch(in map[string]any, _ string) (map[string]any, error) {
	u, err := ccString(in, "url")
	if err != nil {
		return nil, err
	}
	// Claude Code upgrades an http URL to https before it fetches: judge
	// (and grant, and show) what it fetches. Its parser (WHATWG's) strips
	// leading and trailing C0 controls and spaces first: " http://h/" is
	// upgraded too.
	u = strings.TrimFunc(u, func(r rune) bool { return r <= 0x20 })
	if len(u) >= 5 && strings.EqualFold(u[:5], "http:") {
		u = "https:" + u[5:]
	}
	if err := whatwgPath("tool_input.url", u); err != nil {
		return nil, err
	}
	return map[string]any{"url": u}, nil
}

// whatwgPath refuses a URL whose path a WHATWG URL parser (Claude Code's,
// a browser's, Node's fetch, Rust's url crate) reads otherwise than Go's:
// it reads a backslash before the query or fragment as '/' and removes
// the dot segments of the path ("." and "..", %2e spelled too) before it
// fetches, where Go's parser keeps both, so the path shown and bound was
// not the one fetched (docs\..\..\admin fetched /admin: the ninety-eighth
// review; the hundred-and-fourth found the native web_fetch and
// download_url the same). Written with '/' and without dot segments it is
// the same fetch. A backslash in the query or the fragment is a byte
// there too, and is kept.
func whatwgPath(field, u string) error {
	before := u
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		before = u[:i]
	}
	if strings.Contains(before, `\`) {
		return &FieldError{Field: field, Message: `holds a backslash before its query, which a WHATWG URL parser (Claude Code's, a browser's) reads as '/': write '/'`}
	}
	if dotSegments(u) {
		return &FieldError{Field: field, Message: `has a "." or ".." path segment, which a WHATWG URL parser (Claude Code's, a browser's) removes: write the path it leads to`}
	}
	return nil
}

// dotSegments reports whether the path of the URL u (to its query or
// fragment) has a "." or ".." segment, "%2e" counting as '.'.
func dotSegments(u string) bool {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i] // a query or fragment, with or without a path before it
	}
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if j := strings.IndexByte(u, '/'); j >= 0 {
			u = u[j:]
		} else {
			return false
		}
	}
	for seg := range strings.SplitSeq(u, "/") {
		switch strings.ReplaceAll(strings.ToLower(seg), "%2e", ".") {
		case ".", "..":
			return true
		}
	}
	return false
}

// ccWhole keeps every field of a sub-agent's input: besides its prompt,
// Claude Code's Agent tool reads where and how the sub-agent runs
// (isolation "worktree" or "remote", where none of its calls reach this
// hook; cwd; model; run_in_background; name). Each is shown to the person
// and bound by the scope, so that a grant of one sub-agent does not cover
// the same prompt run remotely or in another directory (the thirty-ninth
// review; the ninth found the same of Bash's dangerouslyDisableSandbox).
func ccWhole(in map[string]any, _ string) (map[string]any, error) {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out, nil
}

// ccKeep keeps the named fields (whatever else the input holds is prose for
// the model, and would make every grant unique).
func ccKeep(keys ...string) func(map[string]any, string) (map[string]any, error) {
	return func(in map[string]any, _ string) (map[string]any, error) {
		out := map[string]any{}
		for _, k := range keys {
			if v, ok := in[k]; ok {
				out[k] = v
			}
		}
		return out, nil
	}
}

// ClaudeCodeAsk is how the hook answers a decision that asks a person.
type ClaudeCodeAsk string

// The ways to answer ask.
const (
	// ClaudeCodeAskPrompt answers permissionDecision "ask": Claude Code's
	// own prompt, with turnstile's summary as the reason. A PostToolUse for
	// the call then records that the person allowed it once.
	ClaudeCodeAskPrompt ClaudeCodeAsk = "ask"
	// ClaudeCodeAskHold holds the hook while a person answers the approval
	// request, up to HoldWait, then denies with "no answer".
	ClaudeCodeAskHold ClaudeCodeAsk = "hold"
)

// ClaudeCodePermissionModes are Claude Code's permission_mode values
// ("auto": a classifier answers its prompts).
var ClaudeCodePermissionModes = []string{"default", "plan", "acceptEdits", "dontAsk", "bypassPermissions", "auto"}

// ClaudeCodeProject is what the operator configures for the Claude Code
// sessions whose cwd is under Root.
type ClaudeCodeProject struct {
	// Root is an absolute directory; the longest root containing a session's
	// cwd is its project. "/" catches every session.
	Root string `json:"root"`
	// WorkspaceID is the workspace of the project's turns.
	WorkspaceID string `json:"workspace_id"`
	// Mode is the permission mode of every turn of the project's sessions;
	// Profile, instead, names a permission profile of the server's catalog
	// (serve --profiles; the built-ins are always there). Exactly one.
	Mode    Mode   `json:"mode,omitempty"`
	Profile string `json:"profile,omitempty"`
	// PermissionModes maps Claude Code's permission_mode to a mode, where
	// the operator says so; a permission_mode not listed gets Mode (or
	// Profile).
	PermissionModes map[string]Mode `json:"permission_modes,omitempty"`
}

// ClaudeCodeConfig is the operator's configuration of the Claude Code hook.
type ClaudeCodeConfig struct {
	Projects []ClaudeCodeProject `json:"projects"`
	// Ask is how an ask is answered (default ClaudeCodeAskPrompt).
	Ask ClaudeCodeAsk `json:"ask,omitempty"`
	// HoldWait bounds how long a held hook waits for a person; it must be
	// shorter than the hook's timeout in settings.json.
	HoldWait time.Duration `json:"-"`
}

// PromptsFor reports whether an ask is answered with Claude Code's own
// prompt for a call made in permission_mode pm. Only the interactive modes
// put that prompt before the person: under auto a classifier answers it
// (it allows what it judges safe); under bypassPermissions Claude Code
// releases up to 2.1.199 ran a hook's ask without a prompt
// (anthropics/claude-code#77212), and a later report (#89561) finds the
// same in the modes that never prompt, dontAsk among them. Such a call is
// held for an approver instead, as with ask = "hold": an ask is answered
// by a person, or denied at the hold's end, never run unasked. So is a call
// in a mode this list does not know (a newer Claude Code's, such as agent
// teams' delegate, where who answers a prompt is not known: the
// thirty-ninth review); a payload without a mode (an older Claude Code,
// which sent none) is prompted.
func (c *ClaudeCodeConfig) PromptsFor(pm string) bool {
	return c.Ask == ClaudeCodeAskPrompt && (pm == "" || slices.Contains(promptedModes, pm))
}

// promptedModes are Claude Code's permission modes in which a hook's ask
// is a prompt before the person (PromptsFor).
var promptedModes = []string{"default", "acceptEdits", "plan"}

// MaxClaudeCodeHoldWait bounds HoldWait (Claude Code's longest hook timeout
// is the operator's choice; ten minutes is its default for command hooks).
const MaxClaudeCodeHoldWait = 10 * time.Minute

// Validate checks the configuration and fills its defaults.
func (c *ClaudeCodeConfig) Validate() error {
	if c.Ask == "" {
		c.Ask = ClaudeCodeAskPrompt
	}
	if c.Ask != ClaudeCodeAskPrompt && c.Ask != ClaudeCodeAskHold {
		return &InvalidEnumError{Field: "ask", Value: string(c.Ask), Allowed: []string{string(ClaudeCodeAskPrompt), string(ClaudeCodeAskHold)}}
	}
	if c.HoldWait <= 0 {
		c.HoldWait = 50 * time.Second
	}
	if c.HoldWait > MaxClaudeCodeHoldWait {
		return &FieldError{Field: "hold_wait", Value: c.HoldWait.String(), Message: "must be at most " + MaxClaudeCodeHoldWait.String()}
	}
	seen := map[string]bool{}
	for i := range c.Projects {
		p := &c.Projects[i]
		f := fmt.Sprintf("projects[%d]", i)
		if !strings.HasPrefix(p.Root, "/") {
			return &FieldError{Field: f + ".root", Value: p.Root, Message: "must be an absolute path"}
		}
		p.Root = ResolvePath("/", p.Root)
		if seen[p.Root] {
			return &FieldError{Field: f + ".root", Value: p.Root, Message: "is configured twice"}
		}
		seen[p.Root] = true
		if p.WorkspaceID == "" {
			return &FieldError{Field: f + ".workspace_id", Message: "required"}
		}
		switch {
		case p.Mode != "" && p.Profile != "":
			return &FieldError{Field: f, Message: "select a mode or a profile, never both"}
		case p.Profile != "":
		default:
			if _, err := ParseMode(string(p.Mode)); err != nil {
				return &FieldError{Field: f + ".mode", Value: string(p.Mode), Message: "a mode or a profile is required: " + err.Error()}
			}
		}
		for pm, m := range p.PermissionModes {
			if !slices.Contains(ClaudeCodePermissionModes, pm) {
				return &InvalidEnumError{Field: f + ".permission_modes", Value: pm, Allowed: ClaudeCodePermissionModes}
			}
			if _, err := ParseMode(string(m)); err != nil {
				return &FieldError{Field: f + ".permission_modes." + pm, Value: string(m), Message: err.Error()}
			}
		}
	}
	return nil
}

// Project returns the project of a session's cwd: the configured root that
// contains it with the most path components.
func (c *ClaudeCodeConfig) Project(cwd string) (ClaudeCodeProject, bool) {
	if !strings.HasPrefix(cwd, "/") {
		return ClaudeCodeProject{}, false
	}
	cwd = ResolvePath("/", cwd)
	best := -1
	for i, p := range c.Projects {
		if !PathWithin(cwd, p.Root) {
			continue
		}
		if best < 0 || len(p.Root) > len(c.Projects[best].Root) {
			best = i
		}
	}
	if best < 0 {
		return ClaudeCodeProject{}, false
	}
	return c.Projects[best], true
}

// ForeignRoot returns the first of roots (absolute paths) that the
// operator's projects give another workspace than ws, and that project:
// the most specific project holding the root is another workspace's, or
// the root holds another workspace's project. A turn labelled ws over such
// a root acts on that workspace's files where its approvers and scoped
// auditors see nothing (the twenty-eighth review: the hook refused a
// runtime credential of workspace app a cwd in billing's project, and the
// same credential started, over REST, a turn labelled app rooted there).
func (c *ClaudeCodeConfig) ForeignRoot(ws string, roots []string) (string, ClaudeCodeProject, bool) {
	for _, r := range roots {
		if !strings.HasPrefix(r, "/") {
			continue
		}
		r = ResolvePath("/", r)
		if p, ok := c.Project(r); ok && p.WorkspaceID != ws {
			return r, p, true
		}
		for _, p := range c.Projects {
			if p.WorkspaceID != ws && p.Root != r && PathWithin(p.Root, r) {
				return r, p, true
			}
		}
	}
	return "", ClaudeCodeProject{}, false
}

// Request is the permission profile a turn gets when it starts while
// Claude Code runs in permissionMode: the operator's mapping where there is
// one, else the project's mode or profile.
func (p *ClaudeCodeProject) Request(permissionMode string) *ProfileRequest {
	if m, ok := p.PermissionModes[permissionMode]; ok {
		return &ProfileRequest{Mode: m}
	}
	if p.Profile != "" {
		return &ProfileRequest{Profile: p.Profile}
	}
	return &ProfileRequest{Mode: p.Mode}
}
