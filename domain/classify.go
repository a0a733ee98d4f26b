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
	case slices.Contains(internalTools, name) || claudeCodeInternal(name):
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
		chars := c.str("chars")
		c.a.memo.mode, c.a.memo.command = textMode{shell: true, keysShown: true}, chars
		// Typed without a line end, what it types is ended by a later
		// call, judged apart: "… | cut -d= -f2 | s" then "h⏎" ran what
		// the first hid (the hundred-and-eighth review).
		c.a.memo.open = chars != "" && !strings.HasSuffix(chars, "\n") && !strings.HasSuffix(chars, "\r")
		if chars != "" {
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
		if v, ok := c.args["isolation"]; ok && v != nil && v != "" {
			// Claude Code's Agent with isolation "remote" (its sub-agent's
			// calls reach no hook) or "worktree" (a checkout Claude Code
			// writes itself): any other tool's too (the eighty-sixth
			// review).
			c.a.Also = ActionUnknown
		}
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
	if err := validUTF8(entries); err != nil {
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
	c.a.memo.mode, c.a.memo.command = textMode{shell: true, keysShown: true}, judgedScript(argv, command)
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
		c.a.memo.homeSet = slices.Contains(keys, "HOME")
		shown := make(map[string]string, len(keys)) // each value redacted once, here and in envDetail
		for _, k := range keys {
			v := env[k].(string)
			if !envShowsValue(k) {
				c.a.memo.tainted = append(c.a.memo.tainted, k)
				continue
			}
			if shown[k] = envValueShown(k, v); shown[k] != v {
				c.a.memo.tainted = append(c.a.memo.tainted, k)
			}
		}
		if len(c.a.memo.tainted) > 0 && c.a.memo.computed() {
			exposed = map[string]bool{exposedAll: true, wholeValues: true}
		}
		c.a.Details = append(c.a.Details, Detail{Label: "Environment", Value: envDetailShown(keys, env, exposed, shown), Monospace: true, shown: true})
	} else if _, present := c.args["env"]; present && c.args["env"] != nil {
		return nil, &FieldError{Field: "arguments.env", Message: "must be an object of names to values"}
	}
	// Stdin is bound by its digest and its size, and its size is shown:
	// a size the agent describes (stdin_bytes, beside stdin_sha256) is in
	// the scope, so that one other than the stdin's (POST /exec counts
	// the bytes it is given) is another call; stdin_sha256 without it is
	// refused. The request said nothing of an input described by its
	// digest alone, and allowed a script given later as stdin (the
	// ninety-first review).
	sum, size := c.str("stdin_sha256"), int64(-1)
	if in, ok := c.args["stdin"].(string); ok && in != "" {
		sum, size = hashHex([]byte(in)), int64(len(in))
	} else if sum != "" {
		n, ok := c.args["stdin_bytes"].(json.Number)
		if !ok {
			return nil, &FieldError{Field: "arguments.stdin_bytes", Message: "required with stdin_sha256 (the size of the standard input, in bytes)"}
		}
		if v, err := n.Int64(); err == nil && v >= 0 {
			size = v
		} else {
			return nil, &FieldError{Field: "arguments.stdin_bytes", Value: n.String(), Message: "must be a count of bytes (an integer, 0 or more)"}
		}
	}
	if sum != "" {
		out = append(out, ScopeEntry{"stdin_sha256", c.inv.Key.SumHex(sum)}, ScopeEntry{"stdin_bytes", strconv.FormatInt(size, 10)})
		c.detail("Standard input", strconv.FormatInt(size, 10)+" bytes", false)
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

// validUTF8 refuses a scope entry that is not valid UTF-8: a path
// resolved on disk (a cwd through a link, a file's target) may hold any
// bytes, and JSON, where the scope is hashed, shown and recorded, makes
// each invalid byte U+FFFD: /ws/\xff and /ws/\xfe were one scope, a
// person's answer for one ran the command in the other (the
// hundred-and-eighty-sixth review).
func validUTF8(entries []ScopeEntry) error {
	for _, e := range entries {
		if !utf8.ValidString(e.Value) {
			return &FieldError{Field: "arguments." + e.Key, Value: e.Value, Message: "names a path whose name is not valid UTF-8, which cannot be shown or recorded as it is: it is refused"}
		}
	}
	return nil
}
