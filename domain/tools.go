package domain

import (
	"fmt"
	"strings"
)

// ToolArg is one argument the classifier reads from a tool's arguments.
type ToolArg struct {
	Name string
	// Type is a JSON Schema type ("string", "boolean", "integer",
	// "object", "array") or two joined by "|" ("string|array").
	Type     string
	Required bool
	Doc      string
}

// ToolInfo is one entry of the tool catalogue: a tool name (or, when
// Pattern is set, a family of names) the classifier (Classify) knows, the
// action kind it classifies as, the arguments it reads, and an example.
type ToolInfo struct {
	Name    string
	Pattern bool
	Kind    ActionKind
	Args    []ToolArg
	// Example is a decision request's "arguments" for the tool, as JSON.
	Example string
	Doc     string
}

// ToolCatalogue lists every tool name the classifier knows, in the order
// of its switch, then the name families; any other name is unknown. A test
// keeps it equal to the names Classify compares against, and each example
// classifying as its kind.
var ToolCatalogue = []ToolInfo{
	{Name: "read_file", Kind: ActionFileRead, Args: []ToolArg{
		{"path", "string", true, "the file (also `file_path`, `dir_path`; only one of them); relative to the turn's cwd"}},
		Example: `{"path": "src/main.go"}`, Doc: "a read of the resolved path"},
	{Name: "list_dir", Kind: ActionFileRead, Args: []ToolArg{
		{"path", "string", false, "the directory (also `file_path`, `dir_path`; only one of them); default the cwd"}},
		Example: `{"path": "src"}`, Doc: "a read of the resolved path and the listing's depth (0, every level, when not a positive integer), in the scope and the summary, so that a grant of one level is not one of more; a listing of more levels than one (`depth`, Codex's, 2 when not given; Claude Code's LS, every level) is refused when a directory whose entries it shows is one a read of is refused"},
	{Name: "grep_files", Kind: ActionFileRead, Args: []ToolArg{
		{"path", "string", false, "the tree searched (also `file_path`, `dir_path`, only one of them, and those only for the cwd: Codex reads `path` alone and searches the cwd without it); default the cwd"}},
		Example: `{"path": "src", "pattern": "TODO"}`, Doc: "a read of the whole tree; other arguments (`pattern`) are not judged"},
	{Name: "apply_patch", Kind: ActionFileWrite, Args: []ToolArg{
		{"patch", "string", true, "the patch (also `input`; only one of the two) in the `*** Begin Patch` format: each file named by an `*** Add File: `, `*** Update File: `, `*** Delete File: ` or `*** Move to: ` line is written; or a unified diff (`diff -u`, `git diff`), whose `--- `/`+++ ` headers and rename lines name the files written (a name is judged at every strip level, as written and without each of its leading elements: git apply strips one, patch -pN N, patch without -p all but the last; a name is also judged up to each white space in it (GNU patch ends one at a space, git apply drops a timestamp after one); a name over 4,095 bytes, or a diff standing for over 50,000 names, is refused; a quoted name (in a `diff --git` line too) both as written and decoded; as GNU patch reads them, headers indented with blanks or X's, context diff headers and `Index:` lines name files too)"}},
		Example: `{"patch": "*** Begin Patch\n*** Update File: src/main.go\n@@\n-old\n+new\n*** End Patch"}`, Doc: "a write of every file the patch names; the patch is hashed, never stored"},
	{Name: "exec_command", Kind: ActionShellCommand, Args: []ToolArg{
		{"cmd", "string|array", true, "a shell string (run by /bin/sh -c) or an argv array (also `argv`, `command`; only one of the three)"},
		{"workdir", "string", false, "the working directory; default the turn's cwd (`cwd` is refused unless it is the turn's own: Codex reads `workdir` alone and runs a call naming `cwd` in the turn's)"},
		{"timeout_ms", "integer", false, "the timeout, in milliseconds"},
		{"tty", "boolean", false, "whether it runs on a terminal"},
		{"env", "object", false, "variables it sets: the names are shown, the values only hashed"},
		{"executable", "string", false, "the absolute path argv[0] resolves to"},
		{"stdin", "string", false, "its standard input: hashed, its size shown (or `stdin_sha256`, `stdin_bytes`)"}},
		Example: `{"cmd": ["go", "test", "./..."], "workdir": "."}`, Doc: "the command, argv, cwd, tty, timeout, environment names and a hash of their values and of stdin; any other argument is hashed and shown; a command Codex applies as a patch itself (`apply_patch` with the patch, or a shell script running it on a here-document, after `cd dir &&` or not, with words or redirections before the `<<`; the blanks Codex's bash grammar skips between words, a line continuation and a backslash before a blank among them, are skipped; a `cd` argument is read as a word or a quoted string, so a `&&` inside quotes is part of the directory; one in double quotes with an expansion is refused) is a file_write of each file the patch names too"},
	{Name: "write_stdin", Kind: ActionShellCommand, Args: []ToolArg{
		{"session_id", "string", false, "the terminal session written to"}},
		Example: `{"session_id": "s1", "chars": "y\n"}`, Doc: "the session and a hash of the arguments"},
	{Name: "web_search", Kind: ActionNetwork, Args: []ToolArg{
		{"query", "string", false, "the query (shown to the approver)"},
		{"allowed_domains", "array", false, "the only domains its results come from (shown to the approver); a search the policy allows without asking is refused (`host_not_allowed`) when one of them, or a host below one, is denied, and under a network allow-list unless it names them, each allowed as a fetch of it would be"}},
		Example: `{"query": "go 1.26 release notes"}`, Doc: "a hash of the arguments"},
	{Name: "web_fetch", Kind: ActionNetwork, Args: []ToolArg{
		{"url", "string", true, "an absolute URL"},
		{"method", "string", false, "the HTTP method; default GET"},
		{"scope", "string", false, "`origin`: the call stands for every request with that method to the URL's origin, any path (the egress proxy's connections); the scope then names no path"}},
		Example: `{"url": "https://pkg.go.dev/net/http"}`, Doc: "method, scheme, domain, origin, path and a hash of the full URL (with `scope` `origin`: no path, and `url_scope`); the host is resolved and every address judged (when the call is allowed; one that asks, once a person allows it); any other argument (headers, a body) is hashed and shown"},
	{Name: "download_url", Kind: ActionNetwork, Args: []ToolArg{
		{"url", "string", true, "an absolute URL"},
		{"method", "string", false, "the HTTP method; default GET"},
		{"destination", "string", false, "the file written (also `path`, `dest`; only one of them); default the cwd joined with `destination_hint` or the URL's last path element"},
		{"destination_hint", "string", false, "a plain file name for the default destination"},
		{"overwrite", "boolean", false, "default false"},
		{"create_dirs", "boolean", false, "default true"},
		{"follow_redirects", "boolean", false, "default true"}},
		Example: `{"url": "https://go.dev/dl/go1.26.linux-amd64.tar.gz", "destination": "dl/go.tar.gz"}`, Doc: "network and a file_write of the destination: both must allow it; any other argument is hashed and shown"},
	{Name: "computer_use", Kind: ActionComputerUse, Example: `{"action": "screenshot"}`, Doc: "a hash of the arguments"},
	{Name: "request_tools", Kind: ActionInternal, Example: `{}`, Doc: "the runtime's own bookkeeping: always allowed"},
	{Name: "read_skill", Kind: ActionInternal, Example: `{"name": "pdf"}`, Doc: "the runtime's own bookkeeping: always allowed"},
	{Name: "task_wait", Kind: ActionInternal, Example: `{"task_id": "t1"}`, Doc: "the runtime's own bookkeeping: always allowed"},
	{Name: "task_get", Kind: ActionInternal, Example: `{"task_id": "t1"}`, Doc: "the runtime's own bookkeeping: always allowed"},
	{Name: "task_list", Kind: ActionInternal, Example: `{}`, Doc: "the runtime's own bookkeeping: always allowed"},
	{Name: "task_<name>", Pattern: true, Kind: ActionTaskSubagent, Example: `{"prompt": "review the diff"}`, Doc: "any other `task_` tool: a sub-agent; a hash of the arguments"},
	{Name: "mcp__<server>__<tool>", Pattern: true, Kind: ActionMCPWriteOrUnknown, Example: `{"issue": 17}`, Doc: "an MCP tool (or any call carrying `mcp`, whatever its name: a server's `read_file` is its tool, not the built-in; likewise a call marked `dynamic` is a skill tool): server, tool and a hash of the arguments; `mcp_read` only for a tool the operator trusts (`serve --mcp-read-only server/tool`)"},
	{Name: "skill__<name>", Pattern: true, Kind: ActionDynamicSkillTool, Example: `{}`, Doc: "a tool a skill registered (or any call with `dynamic: true`): a hash of the arguments"},
	{Name: "anything else", Pattern: true, Kind: ActionUnknown, Example: `{}`, Doc: "unclassified: a hash of the arguments, decided by the mode's `default_behavior`; the decision says `\"unclassified\": true`"},
}

// ToolsMarkdown renders the catalogue as Markdown: one table of the tools,
// then each tool's arguments.
func ToolsMarkdown() string {
	var b strings.Builder
	b.WriteString("| tool | action kind | arguments | scope and notes |\n|---|---|---|---|\n")
	for _, t := range ToolCatalogue {
		var args []string
		for _, a := range t.Args {
			s := "`" + a.Name + "`"
			if a.Required {
				s += " (required)"
			}
			args = append(args, s)
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s |\n", t.Name, t.Kind, strings.Join(args, ", "), t.Doc)
	}
	for _, t := range ToolCatalogue {
		if t.Pattern || len(t.Args) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### `%s`\n\n| argument | type | required | meaning |\n|---|---|---|---|\n", t.Name)
		for _, a := range t.Args {
			req := "no"
			if a.Required {
				req = "yes"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", a.Name, strings.ReplaceAll(a.Type, "|", " or "), req, a.Doc)
		}
		fmt.Fprintf(&b, "\nExample: `{\"tool_name\": \"%s\", \"arguments\": %s}`\n", t.Name, strings.ReplaceAll(t.Example, "\n", `\n`))
	}
	return b.String()
}

// ToolArgumentsSchema is the JSON Schema of a tool's arguments.
func ToolArgumentsSchema(t ToolInfo) map[string]any {
	props := map[string]any{}
	var required []string
	for _, a := range t.Args {
		p := map[string]any{"description": a.Doc}
		if types := strings.Split(a.Type, "|"); len(types) > 1 {
			var alts []any
			for _, ty := range types {
				s := map[string]any{"type": ty}
				if ty == "array" {
					s["items"] = map[string]any{"type": "string"}
				}
				alts = append(alts, s)
			}
			p["oneOf"] = alts
		} else {
			p["type"] = a.Type
		}
		props[a.Name] = p
		if a.Required {
			required = append(required, a.Name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "description": t.Doc, "x-action-kind": string(t.Kind)}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// scopeWords names a scope entry in plain words, for ForThisTurn.
var scopeWords = map[string]string{
	"argv": "arguments", "command": "command line", "cwd": "working directory", "tty": "terminal use",
	"timeout_ms": "timeout", "env_keys": "environment names", "env_sha256": "environment values",
	"stdin_sha256": "standard input", "stdin_bytes": "standard input size", "executable": "executable", "path": "file", "paths": "files",
	"operation": "read or write", "payload_hash": "exact arguments", "method": "HTTP method",
	"scheme": "scheme", "domain": "host", "url_origin": "origin", "url_path": "URL path",
	"url_full_hash": "full URL", "mcp_server": "MCP server", "mcp_tool": "MCP tool",
	"session_id": "terminal session", "destination_hint": "file name", "overwrite": "overwrite setting",
	"create_dirs": "create-directories setting", "follow_redirects": "redirect setting",
	RedactedHashKey: "redacted values",
}

// ForThisTurn says in plain words what an allow_for_turn answer to a
// request for action a in turn turnID covers: a grant matches the action
// kind and the hash of its whole scope, so only a call identical in every
// scope entry is allowed again.
func ForThisTurn(a *Action, turnID string) string {
	var what []string
	for _, e := range a.Scope {
		if e.Key == "tool_name" {
			continue
		}
		w := scopeWords[e.Key]
		if w == "" {
			w = strings.ReplaceAll(e.Key, "_", " ")
		}
		what = append(what, w)
	}
	same := "the same arguments"
	if len(what) > 0 {
		same = "the same " + strings.Join(what, ", ")
	}
	return fmt.Sprintf("allow_for_turn allows, until turn %s ends, every later %s call with %s as this one (%s) without asking; any other call still asks. allow_once allows this call only.",
		turnID, a.ToolName, same, forThisTurnSummary(a.Summary))
}

// maxForThisTurnSummary bounds the summary ForThisTurn repeats: the request
// shows the whole summary beside it, and a long command (a here-document)
// repeated there was stored, held and sent twice.
const maxForThisTurnSummary = 200

func forThisTurnSummary(s string) string {
	if c := CutRunes(s, maxForThisTurnSummary); c != s {
		return c + " as the summary shows in full"
	}
	return s
}

// CutRunes is s cut to n runes, marked "…" where it was cut.
func CutRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
