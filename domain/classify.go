package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	pathpkg "path"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Invocation is one tool call an agent wants to make.
type Invocation struct {
	ToolName  string
	Arguments json.RawMessage
	// MCP carries what an MCP server declared about the tool. Declarations
	// alone never make a tool read-only: see MCPTrust.
	MCP *MCPHints
	// Dynamic marks a tool registered at run time by a skill.
	Dynamic bool
	// Key keys the digests of the scope (DigestKey): the engine sets its
	// own on every invocation it classifies.
	Key DigestKey
}

// MCPHints is what an MCP server declared about a tool.
type MCPHints struct {
	Server       string `json:"server"`
	Tool         string `json:"tool"`
	ReadOnlyHint bool   `json:"read_only_hint,omitempty"`
}

// MCPTrust is the operator's list of MCP tools trusted as read-only, as
// "server/tool" (or "server/*").
type MCPTrust []string

// TrustedReadOnly reports whether server/tool is trusted as read-only.
func (t MCPTrust) TrustedReadOnly(server, tool string) bool {
	for _, e := range t {
		s, tl, _ := strings.Cut(e, "/")
		if s == server && (tl == tool || tl == "*") {
			return true
		}
	}
	return false
}

// FileOp is one file a classified action reads or writes.
type FileOp struct {
	Path   string `json:"path"`
	Access Access `json:"access"`
}

// Action is a classified invocation: its kind, what it touches, and its
// scope hash.
type Action struct {
	ToolName string
	Kind     ActionKind
	// Also is a second kind whose behaviour must allow the action too
	// (download_url is network and a file_write of its destination).
	Also ActionKind
	// AlsoTool is a second tool name the tool lists judge the action as:
	// apply_patch for an exec_command Codex applies as a patch itself.
	AlsoTool string
	// Files are the resolved paths the action reads or writes.
	Files []FileOp
	// URL is the parsed target of a network action, when it has one.
	URL *url.URL
	// Method is the upper-case HTTP method of a network action.
	Method string
	// Domains are the hosts a network action without a URL keeps to
	// (web_search's allowed_domains: its results, pages included, come
	// from them alone); nil when it names none; one "(unreadable) …"
	// entry, which no rule allows, when the argument is not a list of
	// strings.
	Domains []string
	// Argv is the command an exec_command runs (a shell string as
	// /bin/sh -c), which the process policy judges as the spawn does.
	Argv  []string
	Scope Scope
	// Shown is the scope as it is recorded and shown: Scope redacted, and
	// when redaction hid a value, a redacted_hash entry (the key's digest of
	// the whole scope) that binds what it hid. ScopeHash is the SHA-256 of
	// Shown's canonical JSON, so a recorded scope hashes to its scope hash
	// and a guess of what it hides does not (nil: Scope is shown redacted,
	// for an Action made elsewhere than by Classify).
	Shown     Scope
	ScopeHash string
	// memo holds the redactions Shown made, for the summary and details.
	memo redactMemo
	// Summary and Details describe the action to a person approving it.
	Summary string
	Details []Detail
}

// Detail is one labelled line of an approval request.
type Detail struct {
	Label     string `json:"label"`
	Value     string `json:"value"`
	Monospace bool   `json:"monospace"`
	// shown: Value is redacted already, as its own kind of text (an
	// environment's values, each as a command is); Redacted leaves it.
	shown bool
}

var internalTools = []string{"request_tools", "read_skill", "task_wait", "task_get", "task_list"}

// Classify turns an invocation into an action. cwd is the snapshot's cwd
// against which relative paths resolve. Malformed arguments are an error
// naming the argument.
func Classify(inv Invocation, cwd string, trust MCPTrust) (Action, error) {
	return ClassifyResolved(inv, cwd, trust, nil)
}

// PathResolver resolves a path argument, as written (relative to the cwd
// Classify was given), for op the way the kernel will (symlinks first, ".."
// on the resolved parent), and returns the path to judge, show and record;
// or it refuses with an error, which ClassifyResolved returns as is.
// tree is set for a recursive read (grep_files): everything below the
// path is read too.
type PathResolver func(raw string, op Access, tree bool) (string, error)

// ClassifyResolved is Classify with every path argument resolved by resolve
// (nil: lexically, by ResolvePath): the action's files, scope, summary and
// details then name the resolved paths.
func ClassifyResolved(inv Invocation, cwd string, trust MCPTrust, resolve PathResolver) (Action, error) {
	return ClassifyChecked(inv, cwd, trust, resolve, nil)
}

// ListingChecker checks a listing of the resolved directory p that shows
// the names depth levels below it (0: every level), not their content; it
// refuses, as a PathResolver does, when the listing would show what a read
// of a directory below refuses.
type ListingChecker func(p string, depth int) error

// ClassifyChecked is ClassifyResolved with a list_dir that lists more than
// one level checked by listing (nil: not checked): Codex's list_dir lists
// depth levels (2 when not given), Claude Code's LS a tree.
func ClassifyChecked(inv Invocation, cwd string, trust MCPTrust, resolve PathResolver, listing ListingChecker) (Action, error) {
	if inv.ToolName == "" {
		return Action{}, &FieldError{Field: "tool_name", Message: "required"}
	}
	c := classifier{inv: inv, cwd: cwd, resolve: resolve, listing: listing, a: Action{ToolName: inv.ToolName}}
	if len(bytes.TrimSpace(inv.Arguments)) > 0 && !bytes.Equal(bytes.TrimSpace(inv.Arguments), []byte("null")) {
		var fast bool
		if c.args, fast = decodeArgsFast(inv.Arguments); !fast {
			dec := json.NewDecoder(bytes.NewReader(inv.Arguments))
			dec.UseNumber()
			if err := dec.Decode(&c.args); err != nil {
				return Action{}, &FieldError{Field: "arguments", Message: "must be a JSON object"}
			}
			if err := repeatedKey(inv.Arguments); err != nil {
				return Action{}, err
			}
		}
		if err := c.oneNamePerArgument(); err != nil {
			return Action{}, err
		}
		if err := c.argumentTypesMatch(); err != nil {
			return Action{}, err
		}
	}
	entries := []ScopeEntry{{"tool_name", inv.ToolName}}
	var err error
	switch name := inv.ToolName; {
	// A tool the runtime says an MCP server or a skill declared is that,
	// whatever its name: a server's tool named like a built-in one
	// (read_file, update_plan) does what the server does, not what the
	// built-in does.
	case inv.MCP != nil:
		entries = c.mcp(entries, trust)
	case inv.Dynamic:
		c.dynamic(&entries, name)
	case slices.Contains(internalTools, name):
		c.a.Kind = ActionInternal
	case name == "read_file" || name == "list_dir" || name == "grep_files":
		entries, err = c.file(entries, ActionFileRead, AccessRead, "path", "file_path", "dir_path")
	case name == "apply_patch":
		entries, err = c.patch(entries)
	case name == "exec_command":
		if entries, err = c.exec(entries); err == nil {
			entries, err = c.unread(entries)
		}
	case name == "write_stdin":
		c.a.Kind = ActionShellCommand
		entries = append(entries, ScopeEntry{"session_id", c.str("session_id")}, c.payload())
		c.a.Summary = "Write to the terminal session " + c.str("session_id")
		c.arguments()
		// What is typed is read by the session's shell: shown as a
		// command is, its key blocks too (the forty-fourth review).
		c.a.memo.mode = textMode{shell: true, keysShown: true}
		if chars := c.str("chars"); chars != "" {
			c.detail("Typed into the session", chars, true)
		}
	case name == "web_search":
		c.a.Kind = ActionNetwork
		entries = append(entries, c.payload())
		c.a.Summary = "Search the web"
		c.detail("Query", c.str("query"), false)
		c.a.Domains = c.strList("allowed_domains")
		if raw, ok := c.args["allowed_domains"]; ok && raw != nil && c.a.Domains == nil {
			if l, isList := raw.([]any); !isList || len(l) > 0 {
				// Given but unreadable (a string, a number in the
				// list): judged as naming a host no rule allows, never as
				// naming none (the eightieth review).
				c.a.Domains = []string{"(unreadable) " + fmt.Sprint(raw)}
			}
		}
		if len(c.a.Domains) > 0 {
			c.detail("Only from", strings.Join(c.a.Domains, ", "), false)
			// Recorded, so that a profile change judges an open search
			// by them (turn.ActionRecord.Judged; the seventy-ninth
			// review).
			entries = append(entries, ScopeEntry{"allowed_domains", jsonList(c.a.Domains)})
		}
	case name == "web_fetch" || name == "download_url":
		if entries, err = c.network(entries); err == nil {
			entries, err = c.unread(entries)
		}
	case name == "computer_use":
		c.a.Kind = ActionComputerUse
		entries = append(entries, c.payload())
		c.a.Summary = "Use the computer"
		c.arguments()
	case strings.HasPrefix(name, "task_"):
		c.a.Kind = ActionTaskSubagent
		entries = append(entries, c.payload())
		c.a.Summary = "Run a sub-agent task (" + name + ")"
		c.arguments()
	case strings.HasPrefix(name, "mcp__"):
		entries = c.mcp(entries, trust)
	case strings.HasPrefix(name, "skill__"):
		c.dynamic(&entries, name)
	default:
		c.a.Kind = ActionUnknown
		entries = append(entries, c.payload())
		c.a.Summary = "Run the unclassified tool " + name
		c.arguments()
	}
	if err != nil {
		return Action{}, err
	}
	if c.a.Summary == "" {
		c.a.Summary = "Run " + inv.ToolName
	}
	c.a.Scope = NewScope(entries...)
	c.a.Shown = c.a.Scope.shown(inv.Key, &c.a.memo)
	c.a.ScopeHash = c.a.Shown.Hash()
	return c.a, nil
}

type classifier struct {
	inv     Invocation
	cwd     string
	resolve PathResolver
	listing ListingChecker
	args    map[string]any
	a       Action
}

// path resolves a path argument for op.
//
// A path from the home directory ("~", "~/…") is refused: Codex's paths
// (AbsolutePathBuf) and Claude Code's expand it to a directory the
// classifier is not told, where it would judge the cwd's "~".
func (c *classifier) path(raw string, op Access) (string, error) {
	if homeRelative(raw) {
		return "", homeError(raw)
	}
	if c.resolve == nil {
		return ResolvePath(c.cwd, raw), nil
	}
	return c.resolve(raw, op, c.inv.ToolName == "grep_files")
}

// pathBothWays is path for an argument Codex resolves with AbsolutePathBuf
// (apply_patch's file names, exec_command's workdir, grep_files' path),
// which applies a ".." before it opens the path, where the kernel applies
// it to where the links before it lead: a path with a ".." element is
// resolved both ways, and refused when the two lead to different places
// (the runtime that runs the call may take either).
func (c *classifier) pathBothWays(raw string, op Access) (string, error) {
	p, err := c.path(raw, op)
	if err != nil || c.resolve == nil || !hasDotDot(raw) {
		return p, err
	}
	q, err := c.path(ResolvePath(c.cwd, raw), op)
	if err != nil {
		return "", err
	}
	if q != p {
		return "", &FieldError{Field: "arguments", Value: raw, Message: "leads to " + p + " when its links are followed before its '..' (the kernel) and to " + q + " when its '..' is applied first (Codex): write the path without '..'"}
	}
	return p, nil
}

// homeRelative reports whether a path names the home directory with "~",
// as Codex's AbsolutePathBuf and Claude Code expand it: "~" or "~/…".
func homeRelative(p string) bool { return p == "~" || strings.HasPrefix(p, "~/") }

func homeError(p string) error {
	return &FieldError{Field: "arguments", Value: p, Message: "names the home directory with '~', which the runtime expands to a directory turnstile is not told: write the absolute path"}
}

func (c *classifier) str(keys ...string) string {
	for _, k := range keys {
		if v, ok := c.args[k].(string); ok {
			return v
		}
	}
	return ""
}

// strList is the list of strings argument key holds: nil when it holds
// none, or anything else than strings.
func (c *classifier) strList(key string) []string {
	l, _ := c.args[key].([]any)
	var out []string
	for _, v := range l {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (c *classifier) detail(label, value string, mono bool) {
	c.a.Details = append(c.a.Details, Detail{Label: label, Value: value, Monospace: mono})
}

func (c *classifier) payload() ScopeEntry {
	return ScopeEntry{"payload_hash", canonicalPayloadHash(c.inv.Arguments, c.inv.Key)}
}

func (c *classifier) file(entries []ScopeEntry, kind ActionKind, op Access, keys ...string) ([]ScopeEntry, error) {
	c.a.Kind = kind
	raw := c.str(keys...)
	if raw == "" {
		if c.inv.ToolName != "list_dir" && c.inv.ToolName != "grep_files" {
			return nil, &FieldError{Field: "arguments." + keys[0], Message: "required"}
		}
		raw = "."
	}
	resolve := c.path
	if c.inv.ToolName == "grep_files" {
		resolve = c.pathBothWays
	}
	p, err := resolve(raw, op)
	if err != nil {
		return nil, err
	}
	if alias := slices.IndexFunc(keys[1:], func(k string) bool { _, ok := c.args[k].(string); return ok }); c.inv.ToolName == "grep_files" && alias >= 0 {
		// Codex's grep_files reads path alone and searches the turn's
		// cwd without it: another name is taken only for that directory.
		if own, err := c.path(".", op); err != nil || own != p {
			return nil, &FieldError{Field: "arguments." + keys[1+alias], Value: raw, Message: "is not the turn's working directory: name the tree searched as path (a runtime that reads path alone, as Codex's grep_files does, would search the turn's)"}
		}
	}
	// A listing's depth (0: every level) is in its scope and its summary:
	// a grant of a listing of a directory's entries is not one of every
	// level below it.
	depth := -1
	if c.inv.ToolName == "list_dir" {
		// A depth that is not a positive integer is checked as a tree:
		// a runtime may read it as one, or list every level.
		depth = 0
		if n, ok := c.args["depth"].(json.Number); ok {
			if d, err := n.Int64(); err == nil && d > 0 && d < 1<<20 {
				depth = int(d)
			}
		}
		if depth != 1 && c.listing != nil {
			if err := c.listing(p, depth); err != nil {
				return nil, err
			}
		}
	}
	c.a.Files = append(c.a.Files, FileOp{Path: p, Access: op})
	c.a.Summary = fmt.Sprintf("%s %s", verb(op), p)
	switch {
	case depth == 0:
		c.a.Summary += " (a listing of every level below)"
	case depth > 1:
		c.a.Summary += fmt.Sprintf(" (a listing %d levels deep)", depth)
	}
	c.detail("Path", p, true)
	entries = append(entries, ScopeEntry{"operation", string(op)}, ScopeEntry{"path", p})
	if depth >= 0 {
		entries = append(entries, ScopeEntry{"depth", strconv.Itoa(depth)})
	}
	return entries, nil
}

func verb(op Access) string {
	if op == AccessWrite {
		return "Write"
	}
	return "Read"
}

// patch classifies apply_patch: every file named by a patch header is a
// write; the patch itself is hashed, never stored.
func (c *classifier) patch(entries []ScopeEntry) ([]ScopeEntry, error) {
	c.a.Kind = ActionFileWrite
	text := c.str("patch", "input")
	if text == "" {
		return nil, &FieldError{Field: "arguments.patch", Message: "required"}
	}
	var paths []string
	names, err := codexPatchNames(text)
	if err != nil {
		return nil, err
	}
	for _, raw := range names {
		p, err := c.pathBothWays(raw, AccessWrite)
		if err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	if len(paths) == 0 || !codexPatch(text) {
		// A unified diff (diff -u, git diff): its headers name the files.
		// A text that is not a Codex patch is read as a diff too, Codex
		// headers or not: to GNU patch "*** Update File: x" is a context
		// diff's first header.
		if diffPaths, ok := unifiedDiffPaths(text); ok {
			if len(diffPaths) > MaxDiffPaths {
				return nil, &FieldError{Field: "arguments.patch", Message: fmt.Sprintf("names more than %d files (each name at each strip level); split it", MaxDiffPaths)}
			}
			for _, raw := range diffPaths {
				if len(raw) > MaxDiffName {
					return nil, &FieldError{Field: "arguments.patch", Message: fmt.Sprintf("names a file of %d bytes; the limit is %d (PATH_MAX)", len(raw), MaxDiffName)}
				}
				p, err := c.path(raw, AccessWrite)
				if err != nil {
					return nil, err
				}
				paths = append(paths, p)
			}
		}
	}
	if len(paths) == 0 {
		return nil, &FieldError{Field: "arguments.patch", Message: "names no file (expected '*** Add/Update/Delete File: path' headers, or a unified diff's '--- a/path' / '+++ b/path' headers)"}
	}
	paths = sortedUnique(paths)
	for _, p := range paths {
		c.a.Files = append(c.a.Files, FileOp{Path: p, Access: AccessWrite})
		c.detail("File", p, true)
	}
	c.a.Summary = fmt.Sprintf("Edit %d file(s): %s", len(paths), strings.Join(paths, ", "))
	entries = append(entries, ScopeEntry{"operation", string(AccessWrite)}, c.payload())
	if len(paths) == 1 {
		return append(entries, ScopeEntry{"path", paths[0]}), nil
	}
	return append(entries, ScopeEntry{"paths", jsonList(paths)}), nil
}

// codexPatchNames returns the names of the files a patch in Codex's format
// writes, as written. Codex's parser trims a hunk header line (Rust's
// trim: Unicode white space, as TrimSpace) before it matches a marker
// (after an Add or Delete hunk, an indented header starts a hunk of its
// own), and keeps what follows the marker's one space, leading blanks
// included; a move line it reads untrimmed. A name with a leading or
// trailing blank, or none, is then another file than the trimmed name
// ("*** Move to:    " moves the file to one named by three spaces, in the
// patch's directory, wherever a cd put it): refused, since no honest patch
// names one (the fifty-eighth review).
func codexPatchNames(text string) ([]string, error) {
	var names []string
	bad := func(line string) error {
		return &FieldError{Field: "arguments.patch", Value: line,
			Message: "a patch header names a file with leading or trailing blanks, or none; Codex would write a file named by those blanks"}
	}
	for line := range strings.SplitSeq(text, "\n") {
		t := strings.TrimSpace(line)
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if t == strings.TrimSpace(h) {
				return nil, bad(line)
			}
			if rest, ok := strings.CutPrefix(t, h); ok {
				if rest == "" || rest != strings.TrimSpace(rest) {
					return nil, bad(line)
				}
				names = append(names, rest)
			}
		}
		if rest, ok := strings.CutPrefix(strings.TrimSuffix(line, "\r"), "*** Move to: "); ok && rest != strings.TrimSpace(rest) {
			return nil, bad(line)
		}
	}
	return names, nil
}

// execPatch returns the patch of a command Codex's exec_command does not
// run but applies itself, as its apply_patch tool applies one
// (maybe_parse_apply_patch): argv ["apply_patch" or "applypatch", patch],
// or a shell (bash, zsh, sh, pwsh, powershell, cmd) whose script is that
// program reading a here-document, alone or after "cd dir &&". dirs are the
// directories, relative to the command's, its names may be relative to:
// "" and, after a cd, that directory (as written, and with the blanks
// Codex's grammar skips taken out). Codex matches the script with
// tree-sitter's bash grammar, which skips white space, a line continuation
// and a backslash before a blank between tokens (shellBlank); this reads
// it more loosely (any script that names the program before a "<<" on
// its line, and a cd's directory before its first "&&"), so that what
// Codex applies is always judged. A cd argument in double quotes
// with an expansion is refused: Codex takes a literal part of it for the
// directory.
func execPatch(argv []string) (patch string, dirs []string, ok bool, err error) {
	isProg := func(s string) bool {
		return s == "apply_patch" || s == "applypatch" || pathpkg.Base(s) == "apply_patch" || pathpkg.Base(s) == "applypatch"
	}
	if len(argv) == 2 && isProg(argv[0]) {
		return argv[1], []string{""}, true, nil
	}
	if len(argv) != 3 && len(argv) != 4 {
		return "", nil, false, nil
	}
	// Codex takes the script of [shell, flag, script] for bash, zsh and sh
	// (-c, -lc), pwsh and powershell (-Command, after -NoProfile or not)
	// and cmd (/c), and reads each as bash: the flags are not looked at.
	switch sh := strings.ToLower(strings.TrimSuffix(pathpkg.Base(argv[0]), pathpkg.Ext(argv[0]))); sh {
	case "bash", "zsh", "sh", "pwsh", "powershell", "cmd":
	default:
		return "", nil, false, nil
	}
	script := argv[len(argv)-1]
	// Any place the program's name stands on a line with a "<<", before
	// the first such "<<" (the here-document's body follows it), may be
	// the program Codex's grammar finds: the first may lie in the cd's
	// argument ("cd apply_patch && apply_patch <<EOF"), so the directory
	// is read before the first and before the last.
	type found struct{ at, redirect int }
	var progs []found
	var heredoc []int32
	// The name as a word: Codex's grammar takes a command named so, never
	// one whose name holds it (an honest "cat > fixtures/apply_patch_x.txt
	// <<EOF" is no patch: the sixty-eighth review). Quotes count as a
	// word's edge, so that the reading stays the looser.
	wordEdge := func(i int) bool {
		// (A byte order mark at the start, which tree-sitter's lexer
		// skips, is the start: the seventy-first review.)
		return i < 0 || (i == 2 && strings.HasPrefix(script, "\uFEFF")) || i >= len(script) ||
			strings.IndexByte(" \t\r\n\v\f;&|()<>'\"\\", script[i]) >= 0
	}
	lastRedirect := strings.LastIndex(script, "<<") // looked up once: a script naming the program many times costs one pass
	// spans is spansLines from i, read once per line (from the line's
	// first occurrence: what follows a later one is part of it).
	spanEnd, spanned := -1, false
	spans := func(i int) bool {
		if i > spanEnd {
			end := strings.IndexByte(script[i:], '\n')
			if end < 0 {
				end = len(script) - i
			}
			spanEnd, spanned = i+end, spansLines(script[i:])
		}
		return spanned
	}
	for _, prog := range []string{"apply_patch", "applypatch"} {
		spanEnd = -1 // each name is looked for from the start again
		for i := 0; ; {
			j := strings.Index(script[i:], prog)
			if j < 0 {
				break
			}
			j += i
			i = j + len(prog)
			if !wordEdge(j-1) || !wordEdge(j+len(prog)) {
				continue
			}
			if heredoc == nil {
				heredoc = heredocsOnLines(script)
			}
			if k := int(heredoc[j+len(prog)]); k >= 0 {
				progs = append(progs, found{j, k})
			} else if i < lastRedirect && spans(i) {
				// The program's arguments may go on past its line (a
				// quoted line break, a substitution, a continuation), and
				// the here-document after them is still the program's,
				// which Codex applies (the seventy-first review).
				return "", nil, false, &FieldError{Field: "arguments.cmd", Message: "names apply_patch with an argument that goes on past its line before a \"<<\": write apply_patch <<'EOF' alone, or after one cd to a plain directory"}
			}
		}
	}
	if len(progs) == 0 {
		return "", nil, false, nil
	}
	redirect := slices.MinFunc(progs, func(a, b found) int { return a.redirect - b.redirect }).redirect
	progs = slices.DeleteFunc(progs, func(p found) bool { return p.at > redirect })
	line := script[strings.LastIndexByte(script[:redirect], '\n')+1:]
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	cdWord := ""
	if rest, ok := strings.CutPrefix(strings.TrimSpace(script), "cd"); ok {
		cdWord = cdArgument(rest)
	}
	if strings.Count(line, "<<") > 1 || strings.ContainsAny(cdWord, "\n<") {
		// A second "<<" on the here-document's line, or a cd argument
		// holding a "<" or a line's end: the "<<" taken may lie inside
		// the cd's argument
		// (cd 'apply_patch <</../../.ssh' && apply_patch <<'EOF'), where
		// the reading below took the wrong one and judged the files in
		// the command's directory while Codex writes them in the cd's
		// (the fifty-ninth review). No patch Codex is sent looks so.
		return "", nil, false, &FieldError{Field: "arguments.cmd", Message: "has more than one \"<<\" on the line of the patch Codex applies itself, or a cd argument that holds a \"<\" or a line's end: write one cd to a plain directory and one apply_patch <<'EOF'"}
	}
	first := slices.MinFunc(progs, func(a, b found) int { return a.at - b.at }).at
	last := slices.MaxFunc(progs, func(a, b found) int { return a.at - b.at }).at
	if !cdHead(script[:last]) || strings.IndexFunc(script[:last], func(r rune) bool { return r > 0x7f && unicode.IsSpace(r) }) >= 0 {
		// Codex's grammar lets assignments and redirections stand before
		// the cd's name (FOO=1 cd DIR &&, cd=1 cd DIR &&, >x cd DIR &&)
		// and skips a byte order mark: it then writes in DIR, where the
		// reading above found no cd (the sixty-eighth review). What stands
		// before the program must be nothing or one plain cd; and no
		// white space beyond ASCII, which the grammar keeps in a word and
		// this reading skipped (the seventy-first review).
		return "", nil, false, &FieldError{Field: "arguments.cmd", Message: "has something other than one \"cd DIR &&\" before the apply_patch Codex applies itself: write apply_patch <<'EOF' alone, or after one cd to a plain directory"}
	}
	_, body, ok := strings.Cut(script[redirect:], "\n")
	if !ok {
		return "", nil, false, nil
	}
	dirs = []string{""}
	cds := append(cdDirs(script[:first]), cdDirs(script[:last])...)
	for _, dir := range cds {
		if strings.HasPrefix(dir, "$") {
			// $"DIR", $'DIR', $X: the grammar reads a string or an
			// expansion, which this reading cannot follow (the
			// seventy-first review).
			return "", nil, false, &FieldError{Field: "arguments.cmd", Value: dir, Message: "is a cd argument starting with $ before a patch Codex applies itself: write the directory"}
		}
		if len(dir) >= 2 && (dir[0] == '\'' || dir[0] == '"') && dir[len(dir)-1] == dir[0] {
			if dir[0] == '"' && strings.ContainsAny(dir, "$`") {
				return "", nil, false, &FieldError{Field: "arguments.cmd", Value: dir, Message: "is a cd argument with an expansion before a patch Codex applies itself, which takes a literal part of it for the directory: write the directory"}
			}
			dir = dir[1 : len(dir)-1]
		}
		if dir != "" && !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	return body, dirs, true, nil
}

// spansLines reports whether the rest of a line (s, up to its end) holds
// what may carry a command's words past the line's end: a quote, a
// substitution or a backslash before the line's end.
func spansLines(s string) bool {
	line, _, _ := strings.Cut(s, "\n")
	line = strings.TrimSuffix(line, "\r")
	return strings.ContainsAny(line, "'\"`") || strings.Contains(line, "$(") || strings.HasSuffix(line, "\\")
}

// cdHead reports whether head, the script before the program Codex would
// apply, is what Codex's two forms allow there: no "&&" at all (the
// program alone, after assignments or redirections of its own), or one
// "cd WORD &&" at the start, with the blanks Codex's grammar skips around
// its words (what stands between the "&&" and the program is the
// program's own).
func cdHead(head string) bool {
	h := shellBlank(head)
	rest, ok := strings.CutPrefix(h, "cd")
	if !ok {
		return !strings.Contains(head, "&&")
	}
	arg := shellBlank(rest)
	if len(arg) == len(rest) {
		return !strings.Contains(head, "&&") // "cd" runs into what follows ("cd=1")
	}
	w := cdArgument(arg)
	if w == "" || !strings.HasPrefix(arg, w) {
		return false
	}
	return strings.HasPrefix(shellBlank(arg[len(w):]), "&&")
}

// cdDirs returns the directories a "cd dir && " at the start of head may
// name, as written and with the blanks Codex's grammar skips taken out.
// Codex's form anchors the cd (one argument) but not the command after the
// "&&", which may have assignments, arguments and redirections: the
// directory is what comes before the first "&&", before the last, and the
// cd's argument read as the grammar reads a word (a "&&" inside quotes,
// 'q&&r', is part of it).
func cdDirs(head string) []string {
	var cds []string
	for _, h := range []string{head, unblank(head)} {
		rest, ok := strings.CutPrefix(strings.TrimSpace(h), "cd")
		if !ok {
			continue
		}
		if i := strings.Index(rest, "&&"); i >= 0 {
			// The whole-text candidates lose their blanks; the word keeps
			// a trailing escaped one ("cd x\  && …": Codex writes in
			// "x\ ", the sixty-first review).
			cds = append(cds, strings.TrimSpace(rest[:i]), strings.TrimSpace(rest[:strings.LastIndex(rest, "&&")]), cdArgument(rest))
		}
	}
	return cds
}

// cdArgument returns the shell word at the start of s, after the blanks
// the grammar skips: a single- or double-quoted string whole, its quotes
// kept, or a bare word up to a blank or an operator character, a
// backslash and the character after it kept in it.
func cdArgument(s string) string {
	s = shellBlank(s)
	if s == "" {
		return ""
	}
	switch s[0] {
	case '\'':
		if j := strings.IndexByte(s[1:], '\''); j >= 0 {
			return s[:j+2]
		}
	case '"':
		for j := 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '"':
				return s[:j+1]
			}
		}
	}
	for j := 0; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\':
			j++
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || strings.IndexByte(";&|<>()", c) >= 0:
			return s[:j]
		}
	}
	return s
}

// heredocsOnLines returns, for each index i of script (and its length),
// the index of the first "<<" from i on on the same line (a line
// continuation does not end it), or -1: Codex's grammar lets a redirection
// or, after a cd, words come between the program and its here-document.
// One pass from the end, so that a script naming the program at every
// word is not scanned to its line's end from each.
func heredocsOnLines(script string) []int32 {
	next := make([]int32, len(script)+1)
	next[len(script)] = -1
	for i := len(script) - 1; i >= 0; i-- {
		switch {
		case strings.HasPrefix(script[i:], "<<"):
			next[i] = int32(i)
		case strings.HasPrefix(script[i:], "\\\n"):
			next[i] = next[i+2]
		case strings.HasPrefix(script[i:], "\\\r\n"):
			next[i] = next[i+3]
		case script[i] == '\n':
			next[i] = -1
		default:
			next[i] = next[i+1]
		}
	}
	return next
}

// shellBlank returns s after the blanks tree-sitter's bash grammar skips
// between tokens at its start: white space, a line continuation (backslash
// newline) and a backslash before a space, tab, vertical tab or form feed.
func shellBlank(s string) string {
	for {
		switch {
		case strings.HasPrefix(s, "\\\n"):
			s = s[2:]
		case strings.HasPrefix(s, "\\\r\n"):
			s = s[3:]
		case len(s) >= 2 && s[0] == '\\' && strings.IndexByte(" \t\v\f", s[1]) >= 0:
			s = s[2:]
		default:
			r, n := utf8.DecodeRuneInString(s)
			if n == 0 || !unicode.IsSpace(r) {
				return s
			}
			s = s[n:]
		}
	}
}

// unblank replaces each run of what shellBlank skips in s by a space.
func unblank(s string) string {
	var b strings.Builder
	for s != "" {
		if rest := shellBlank(s); len(rest) < len(s) {
			b.WriteByte(' ')
			s = rest
			continue
		}
		_, n := utf8.DecodeRuneInString(s)
		b.WriteString(s[:n])
		s = s[n:]
	}
	return b.String()
}

// codexPatch reports whether text is a patch in Codex's format, which
// Codex's parser alone accepts: its first line, trimmed, is "*** Begin
// Patch", or (Codex's lenient form) a heredoc start whose next line is.
func codexPatch(text string) bool {
	first, rest, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if strings.TrimSpace(first) == "*** Begin Patch" {
		return true
	}
	if first = strings.TrimSpace(first); first == "<<EOF" || first == "<<'EOF'" || first == `<<"EOF"` {
		second, _, _ := strings.Cut(rest, "\n")
		return strings.TrimSpace(second) == "*** Begin Patch"
	}
	return false
}

// exec classifies exec_command: command, argv, cwd, tty, timeout and the
// names (never the values) of the environment it sets.
func (c *classifier) exec(entries []ScopeEntry) ([]ScopeEntry, error) {
	c.a.Kind = ActionShellCommand
	argv, command, err := c.argv()
	if err != nil {
		return nil, err
	}
	c.a.Argv = argv
	// Any line of a command may be one a shell runs, whatever marker is
	// before it: nothing of a command is hidden as key material (three
	// reviews broke a lexer that told a key's data from code: the
	// thirty-ninth, forty-second and forty-fourth).
	c.a.memo.mode = textMode{shell: true, keysShown: true}
	// A workdir is resolved as a path argument is (c.path: the way the
	// kernel will, and read-checked, as the spawn checks it): "lnk/.." is
	// where lnk leads, not the cwd.
	// patchBase is the workdir as Codex joins a patch's names to it
	// (AbsolutePathBuf: lexically, its links not followed), so that a '..'
	// in a name is read both ways from there too.
	var cwd, patchBase string
	if raw := c.str("workdir", "cwd"); raw != "" {
		if cwd, err = c.pathBothWays(raw, AccessRead); err != nil {
			return nil, err
		}
		patchBase = ResolvePath(c.cwd, raw)
		// Codex's exec_command reads workdir alone: a runtime that does
		// not know the other name runs the command in the turn's cwd, so
		// a cwd is taken only when it is that directory.
		if _, alias := c.args["cwd"].(string); alias {
			if own, err := c.path(".", AccessRead); err != nil || own != cwd {
				return nil, &FieldError{Field: "arguments.cwd", Value: raw, Message: "is not the turn's working directory: name another one as workdir (a runtime that reads workdir alone, as Codex does, would run the command in the turn's)"}
			}
		}
	} else {
		cwd = ResolvePath(c.cwd, "")
		patchBase = cwd
	}
	tty, _ := c.args["tty"].(bool)
	entries = append(entries,
		ScopeEntry{"command", command}, ScopeEntry{"argv", jsonList(argv)},
		ScopeEntry{"cwd", cwd}, ScopeEntry{"tty", strconv.FormatBool(tty)})
	if n, ok := c.args["timeout_ms"].(json.Number); ok {
		ms, err := n.Int64()
		if err != nil || ms < 0 {
			return nil, &FieldError{Field: "arguments.timeout_ms", Value: n.String(), Message: "must be a non-negative integer"}
		}
		entries = append(entries, ScopeEntry{"timeout_ms", strconv.FormatInt(ms, 10)})
	}
	c.a.Summary = runPrefix + command
	c.detail("Command", command, true)
	c.detail("Working directory", cwd, true)
	patch, dirs, ok, err := execPatch(argv)
	if err != nil {
		return nil, err
	}
	if ok {
		// Codex applies this patch itself, outside the command's sandbox:
		// the files it writes are judged as apply_patch's are, and the
		// call must be a file_write the policy allows too, and a tool
		// the tool lists allow as apply_patch (the sixty-first review).
		c.a.AlsoTool = "apply_patch"
		var paths []string
		names, err := codexPatchNames(patch)
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			for _, dir := range dirs {
				if homeRelative(dir) {
					return nil, homeError(dir)
				}
				if homeRelative(name) {
					return nil, homeError(name)
				}
				// Joined as written, never cleaned: c.path resolves the
				// ".." in it both ways.
				base := patchBase
				if pathpkg.IsAbs(dir) {
					base = dir
				} else if dir != "" {
					base = patchBase + "/" + dir
				}
				raw := name
				if !pathpkg.IsAbs(name) {
					raw = base + "/" + name
				}
				p, err := c.pathBothWays(raw, AccessWrite)
				if err != nil {
					return nil, err
				}
				paths = append(paths, p)
			}
		}
		paths = sortedUnique(paths)
		for _, p := range paths {
			c.a.Files = append(c.a.Files, FileOp{Path: p, Access: AccessWrite})
			c.detail("File", p, true)
		}
		if len(paths) > 0 {
			c.a.Also = ActionFileWrite
			// The files it writes, resolved, are in the scope as
			// apply_patch's are: a grant for the turn given for one
			// file is not one for where a link re-pointed later leads
			// (the fifty-eighth review).
			entries = append(entries, ScopeEntry{"patch_paths", jsonList(paths)})
		}
	}
	bound, err := c.execBindings(command)
	if err != nil {
		return nil, err
	}
	return append(entries, bound...), nil
}

// execBindings binds what else decides what runs (ExecBindings): the
// executable argv[0] resolved to, a digest of the environment's values, a
// digest of stdin. The environment's names, the executable and the stdin
// size are shown to the approver, and the values of the variables that
// choose what runs (envShowsValue: a PATH or HOME of the agent's choosing
// picks what a shell or git runs, the thirty-fourth review); values and
// content never enter the scope in clear.
func (c *classifier) execBindings(command string) ([]ScopeEntry, error) {
	var out []ScopeEntry
	if exe := c.str("executable"); exe != "" {
		out = append(out, ScopeEntry{"executable", exe})
		c.detail("Executable", exe, true)
	}
	if env, ok := c.args["env"].(map[string]any); ok {
		keys := make([]string, 0, len(env))
		pairs := make([]string, 0, len(env))
		for k, v := range env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				// The kernel reads NAME=value up to the first "=": a
				// name "PATH=" with the value "w/.bin" is PATH, shown
				// as a name nobody reads (the thirty-fifth review).
				return nil, &FieldError{Field: "arguments.env", Value: k, Message: "a variable's name must not be empty or hold '=' or NUL"}
			}
			sv, ok := v.(string)
			if !ok {
				// A command's environment is strings: another value was
				// shown by name alone while its digest (fmt.Sprint)
				// equalled a string's, so an approval of ["…"] covered
				// the exec with the string "[…]" (the thirty-sixth
				// review).
				return nil, &FieldError{Field: "arguments.env." + k, Message: "must be a string"}
			}
			if len(sv) > MaxEnvironmentValue && envShowsValue(k) {
				// Shown whole or not at all: a PATH's deciding entry past a
				// cut was unseen (the thirty-seventh review).
				return nil, &FieldError{Field: "arguments.env." + k, Message: fmt.Sprintf("at most %d bytes (the request shows it whole)", MaxEnvironmentValue)}
			}
			keys = append(keys, k)
			pairs = append(pairs, k+"="+sv)
		}
		slices.Sort(keys)
		slices.Sort(pairs)
		out = append(out, ScopeEntry{"env_keys", jsonList(keys)}, ScopeEntry{"env_sha256", c.inv.Key.Sum([]byte(jsonList(pairs)))})
		exposed := exposedVars(command, keys...)
		c.a.Details = append(c.a.Details, Detail{Label: "Environment", Value: envDetail(keys, env, exposed), Monospace: true, shown: true})
	} else if _, present := c.args["env"]; present && c.args["env"] != nil {
		return nil, &FieldError{Field: "arguments.env", Message: "must be an object of names to values"}
	}
	sum, size := c.str("stdin_sha256"), int64(-1)
	if in, ok := c.args["stdin"].(string); ok && in != "" {
		sum, size = hashHex([]byte(in)), int64(len(in))
	} else if n, ok := c.args["stdin_bytes"].(json.Number); ok {
		size, _ = n.Int64()
	}
	if sum != "" {
		out = append(out, ScopeEntry{"stdin_sha256", c.inv.Key.SumHex(sum)})
		if size >= 0 {
			c.detail("Standard input", strconv.FormatInt(size, 10)+" bytes", false)
		}
	}
	return out, nil
}

// argv reads the command as an array ("argv", "cmd" or "command") or a shell
// string ("cmd" or "command", run with /bin/sh -c).
func (c *classifier) argv() ([]string, string, error) {
	for _, k := range []string{"argv", "cmd", "command"} {
		switch v := c.args[k].(type) {
		case string:
			if strings.TrimSpace(v) == "" {
				return nil, "", &FieldError{Field: "arguments." + k, Message: "must not be empty"}
			}
			if err := argTooLong("arguments."+k, v); err != nil {
				return nil, "", err
			}
			return []string{"/bin/sh", "-c", v}, v, nil
		case []any:
			argv := make([]string, 0, len(v))
			for i, x := range v {
				s, ok := x.(string)
				if !ok {
					return nil, "", &FieldError{Field: fmt.Sprintf("arguments.%s[%d]", k, i), Message: "must be a string"}
				}
				if err := argTooLong(fmt.Sprintf("arguments.%s[%d]", k, i), s); err != nil {
					return nil, "", err
				}
				argv = append(argv, s)
			}
			if len(argv) == 0 || argv[0] == "" {
				return nil, "", &FieldError{Field: "arguments." + k, Message: "must name a program"}
			}
			return argv, ShellJoin(argv), nil
		}
	}
	return nil, "", &FieldError{Field: "arguments.cmd", Message: "required (a string or an argv array)"}
}

// MaxArgBytes is the longest argument a program can be started with: the
// kernel's MAX_ARG_STRLEN (32 pages of 4 KiB, its NUL included); execve
// fails with E2BIG past it. A shell command is one argument of /bin/sh.
const MaxArgBytes = 128<<10 - 1

// argTooLong refuses an argument no program could be started with, before
// it is classified, hashed and redacted for display (a decision's cost
// grows with it: a 1 MiB command took seconds of the server's CPU).
func argTooLong(field, v string) error {
	if len(v) > MaxArgBytes {
		return &FieldError{Field: field, Message: fmt.Sprintf("is %d bytes long; the limit is %d (MAX_ARG_STRLEN: the kernel starts no program with a longer argument)", len(v), MaxArgBytes)}
	}
	return nil
}

// ShellJoin renders argv as a POSIX shell command line.
func ShellJoin(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '=' || r == ':' || r == ',' || r == '+' || r == '@' || r == '%' ||
				(r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'))
		}) < 0 {
			b.WriteString(a)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}

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
	c.detail("URL", origin+path, true)
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

// mcp classifies an MCP tool: read-only only when the operator trusts it.
func (c *classifier) mcp(entries []ScopeEntry, trust MCPTrust) []ScopeEntry {
	server, tool := "", c.inv.ToolName
	if c.inv.MCP != nil {
		server, tool = c.inv.MCP.Server, c.inv.MCP.Tool
	}
	trusted := func() bool { return server != "" && trust.TrustedReadOnly(server, tool) }
	if rest, ok := strings.CutPrefix(c.inv.ToolName, "mcp__"); ok && server == "" {
		server, tool, _ = strings.Cut(rest, "__")
		if strings.Contains(tool, "_") {
			// mcp__a__b__c names server a's tool b__c or server a__b's
			// tool c (and mcp__a___b a's _b or a_'s b): trusted only
			// when every reading is.
			trusted = func() bool { return mcpTrustedEveryWay(trust, rest) }
		}
	}
	c.a.Kind = ActionMCPWriteOrUnknown
	if trusted() {
		c.a.Kind = ActionMCPRead
	}
	c.a.Summary = fmt.Sprintf("Call the MCP tool %s on %s", tool, server)
	c.detail("Server", server, false)
	c.detail("Tool", tool, true)
	c.arguments()
	return append(entries, ScopeEntry{"mcp_server", server}, ScopeEntry{"mcp_tool", tool}, c.payload())
}

// mcpTrustedEveryWay reports whether each way of reading an MCP tool's
// name after "mcp__" as "<server>__<tool>" (both not empty) names a tool
// trust holds read-only.
func mcpTrustedEveryWay(trust MCPTrust, rest string) bool {
	ways := 0
	for i := 1; i+2 < len(rest); i++ {
		if rest[i:i+2] != "__" {
			continue
		}
		if !trust.TrustedReadOnly(rest[:i], rest[i+2:]) {
			return false
		}
		ways++
	}
	return ways > 0
}

// dynamic classifies a tool a skill registered at run time.
func (c *classifier) dynamic(entries *[]ScopeEntry, name string) {
	c.a.Kind = ActionDynamicSkillTool
	*entries = append(*entries, c.payload())
	c.a.Summary = "Run the skill tool " + name
	c.arguments()
}
